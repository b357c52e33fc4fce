package pulumiprojects

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/internal/testserver"
)

// TestPulumiCLIReadsRunnerBackends deploys the YAML chain project with
// runner on each backend kept in Pulumi's DIY layout (the folder, the
// default; S3 on gofakes3 and on versitygw), then logs the Pulumi CLI in to
// the same URL: `pulumi stack ls` lists runner's stack, `pulumi stack
// export` gives the resources runner's export holds, `pulumi stack output`
// opens its secret and `pulumi stack history` reads runner's update record.
func TestPulumiCLIReadsRunnerBackends(t *testing.T) {
	for _, b := range []struct {
		name   string
		server func(testing.TB) *testserver.S3Server
	}{
		{"file", nil},
		{"gofakes3", testserver.GoFakeS3},
		{"versitygw", testserver.Versity},
	} {
		t.Run(b.name, func(t *testing.T) {
			w, store := chainWorkspace(t)
			url := "file://" + filepath.Join(w.dir, ".runner")
			if b.server != nil {
				srv := b.server(t)
				w.extra = append(append(w.extra, srv.Env...), "RUNNER_BACKEND_URL="+srv.URL)
				url = srv.URL
			}
			pl := newPulumi(t, w)
			w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
			w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", "chain:token", secretToken)
			w.ok("-p", "e", "-s", "dev", "up", "--yes")
			tmp := t.TempDir()
			shown := filepath.Join(tmp, "runner-shown.json")
			w.ok("-p", "e", "-s", "dev", "stack", "export", "--project", "chain", "--show-secrets", "--file", shown)

			pl.ok(tmp, "login", url)
			const stack = "organization/chain/dev"
			var ls []struct {
				Name          string `json:"name"`
				ResourceCount int    `json:"resourceCount"`
			}
			r := pl.ok(tmp, "stack", "ls", "--all", "--json")
			if err := json.Unmarshal([]byte(r.Stdout), &ls); err != nil {
				t.Fatalf("pulumi stack ls --json: %v\n%s", err, r.Stdout)
			}
			if len(ls) != 1 || ls[0].Name != stack || ls[0].ResourceCount != 5 {
				t.Errorf("pulumi stack ls lists %+v, want %s with 5 resources (the stack, the provider, three things)", ls, stack)
			}
			pshown := filepath.Join(tmp, "pulumi-shown.json")
			pl.ok(tmp, "stack", "export", "--stack", stack, "--show-secrets", "--file", pshown)
			sameResources(t, "runner's export", readDeployment(t, shown), "pulumi stack export", readDeployment(t, pshown))
			var outs map[string]any
			r = pl.ok(tmp, "stack", "output", "--stack", stack, "--show-secrets", "--json")
			if err := json.Unmarshal([]byte(r.Stdout), &outs); err != nil {
				t.Fatalf("pulumi stack output --json: %v\n%s", err, r.Stdout)
			}
			if outs["last"] != "p-a-b-c" || outs["token"] != secretToken {
				t.Errorf("pulumi stack output: last %v, token is the secret: %v", outs["last"], outs["token"] == secretToken)
			}
			var hist []struct {
				Kind   string `json:"kind"`
				Result string `json:"result"`
			}
			r = pl.ok(tmp, "stack", "history", "--stack", stack, "--json")
			if err := json.Unmarshal([]byte(r.Stdout), &hist); err != nil {
				t.Fatalf("pulumi stack history --json: %v\n%s", err, r.Stdout)
			}
			if len(hist) != 1 || hist[0].Kind != "update" || hist[0].Result != "succeeded" {
				t.Errorf("pulumi stack history: %+v, want one succeeded update\n%s", hist, r.Stdout)
			}
			if strings.Contains(r.Stdout+r.Stderr, secretToken) {
				t.Errorf("pulumi stack history shows the secret")
			}
		})
	}
}

// TestPulumiCLIUpdatesRunnerStackInPlace shares runner's folder backend with
// the Pulumi CLI: runner deploys, Pulumi (logged in to the same folder, its
// stack config beside Pulumi.yaml with an encryptionsalt of its own) changes
// an input and updates, then runner previews no change and updates nothing,
// and Pulumi, after runner's next write, still previews no change and opens
// the secret. Before the fix runner refused the stack: the state Pulumi
// wrote records the project's salt, not the stack config's.
func TestPulumiCLIUpdatesRunnerStackInPlace(t *testing.T) {
	w, store := chainWorkspace(t)
	pl := newPulumi(t, w)
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", "chain:token", secretToken)
	w.ok("-p", "e", "-s", "dev", "up", "--yes")

	chain := filepath.Join(w.dir, "chain")
	pl.ok(chain, "login", "file://"+filepath.Join(w.dir, ".runner"))
	pl.ok(chain, "stack", "select", "dev")
	pl.ok(chain, "config", "set", "testprov:store", string(store))
	pl.ok(chain, "config", "set", "--secret", "token", secretToken)
	pl.ok(chain, "config", "set", "prefix", "q")
	pl.ok(chain, "up", "--yes")
	if got, want := values(t, store), []string{"q-a", "q-a-b", "q-a-b-c"}; !equal(got, want) {
		t.Fatalf("after Pulumi's up the store holds %v, want %v", got, want)
	}

	r := w.ok("-p", "e", "-s", "dev", "--json", "preview")
	if c := runnerSummary(t, r); len(c) != 1 || c["same"] != 4 {
		t.Errorf("runner's preview after Pulumi's up: counts %v, want only 4 same\n%s", c, r.Stdout)
	}
	r = w.ok("-p", "e", "-s", "dev", "--json", "up", "--yes")
	if c := runnerSummary(t, r); len(c) != 1 || c["same"] != 4 {
		t.Errorf("runner's up after Pulumi's up: counts %v, want only 4 same\n%s", c, r.Stdout)
	}
	if outs := w.outputs("chain"); outs["last"] != "q-a-b-c" {
		t.Errorf("runner's stack output: %v", outs)
	}
	pl.ok(chain, "preview", "--expect-no-changes")
	if r := pl.ok(chain, "stack", "output", "token", "--show-secrets"); strings.TrimSpace(r.Stdout) != secretToken {
		t.Errorf("pulumi stack output token after runner's write is not the secret")
	}
}
