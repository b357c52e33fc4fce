package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/internal/golden"
)

// normalize removes what changes from run to run: the workspace path,
// times, durations, ports, pids, random hex, line counts of PEMs, user and host.
func normalize(dir, s string) string {
	s = strings.ReplaceAll(s, dir, "$WS")
	if u, err := user.Current(); err == nil {
		s = strings.ReplaceAll(s, `"user": "`+u.Username+`"`, `"user": "<user>"`)
		s = strings.ReplaceAll(s, u.Username+"@", "<user>@")
	}
	if h, err := os.Hostname(); err == nil {
		s = strings.ReplaceAll(s, `"host": "`+h+`"`, `"host": "<host>"`)
		s = strings.ReplaceAll(s, "@"+h, "@<host>")
	}
	for _, r := range []struct{ re, to string }{
		{`\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?`, "<time>"},
		{`127\.0\.0\.1:\d+`, "127.0.0.1:<port>"},
		{`("port": |port +)\d+`, "${1}<port>"},
		{`("pid": |pid +)\d+`, "${1}<pid>"},
		{`[0-9a-f]{32}`, "<hex>"},
		{`\(\d+ lines\)`, "(N lines)"},
		{`\b\d+(\.\d+)?(ms|s)\b`, "<dur>"},
		{`-----BEGIN CERTIFICATE-----\\n[^"]*-----END CERTIFICATE-----\\n`, "<pem>"},
	} {
		s = regexp.MustCompile(r.re).ReplaceAllString(s, r.to)
	}
	if !strings.HasPrefix(strings.TrimSpace(s), "{") && !strings.HasPrefix(strings.TrimSpace(s), "[") {
		// Table columns whose width depended on a normalized value.
		s = regexp.MustCompile(` {2,}`).ReplaceAllString(s, "  ")
	}
	return s
}

func TestStackCommands(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "--non-interactive", "up", "--yes", "--parallel", "1")

	t.Run("golden listings", func(t *testing.T) {
		for _, c := range []struct {
			name string
			args []string
		}{
			{"ls.golden", []string{"stack", "ls"}},
			{"ls.json.golden", []string{"--json", "stack", "ls"}},
			{"output.golden", []string{"stack", "output"}},
			{"output.json.golden", []string{"--json", "stack", "output"}},
			{"history.golden", []string{"stack", "history"}},
			{"history.json.golden", []string{"--json", "stack", "history"}},
		} {
			golden.Check(t, filepath.Join("stack", c.name), []byte(normalize(dir, ok(t, dir, c.args...).Stdout)))
		}
	})

	t.Run("output hides secrets", func(t *testing.T) {
		secret := strings.TrimSpace(ok(t, dir, "stack", "output", "--project", "secrets", "--show-secrets", "sessionKey").Stdout)
		if len(secret) < 16 {
			t.Fatalf("the session key is %q", secret)
		}
		for _, args := range [][]string{{"stack", "output"}, {"--json", "stack", "output"}, {"stack", "output", "sessionKey"}, {"stack", "export", "--project", "secrets"}} {
			if out := ok(t, dir, args...).Stdout; strings.Contains(out, secret) {
				t.Fatalf("runner %v shows the secret session key", args)
			}
		}
		if out := ok(t, dir, "stack", "export", "--project", "secrets", "--show-secrets").Stdout; !strings.Contains(out, secret) {
			t.Fatal("export --show-secrets does not show the session key")
		}
	})

	t.Run("export then import gives the same state", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "ingress.json")
		ok(t, dir, "stack", "export", "--project", "ingress", "--file", file)
		before := ok(t, dir, "stack", "export", "--project", "ingress").Stdout
		ok(t, dir, "stack", "import", "--project", "ingress", "--file", file)
		after := ok(t, dir, "stack", "export", "--project", "ingress").Stdout
		if resources(t, before) != resources(t, after) {
			t.Fatalf("the state changed across export and import:\n%s\n---\n%s", before, after)
		}
		// The imported state is what up works from: nothing to do.
		for p, row := range summary(t, ok(t, dir, "--json", "preview").Stdout) {
			if changes(row) != 0 {
				t.Fatalf("after the import, preview plans changes in %s", p)
			}
		}
	})

	t.Run("bad imports are refused and change nothing", func(t *testing.T) {
		good := ok(t, dir, "stack", "export", "--project", "ingress").Stdout
		var doc map[string]any
		if err := json.Unmarshal([]byte(good), &doc); err != nil {
			t.Fatal(err)
		}
		res := doc["deployment"].(map[string]any)["resources"].([]any)
		// Out of order: the last resource (which depends on others) first.
		swapped := append([]any{res[len(res)-1]}, res[:len(res)-1]...)
		doc["deployment"].(map[string]any)["resources"] = swapped
		outOfOrder, _ := json.Marshal(doc)

		otherStack := strings.ReplaceAll(good, "urn:pulumi:dev::", "urn:pulumi:prod::")

		// The same project exported from a workspace with another passphrase.
		other := workspace(t)
		r := run(t, other, adminPassword, []string{"PULUMI_CONFIG_PASSPHRASE=another-passphrase"}, "-s", "dev", "config", "set", "--secret", "app:adminPassword")
		if r.Code != 0 {
			t.Fatal(r.Stderr)
		}
		for _, a := range [][]string{{"--non-interactive", "up", "--yes", "--target", "ca"}, {"stack", "export", "--project", "ca"}} {
			if r = run(t, other, "", []string{"PULUMI_CONFIG_PASSPHRASE=another-passphrase"}, a...); r.Code != 0 {
				t.Fatalf("%v: %s", a, r.Stderr)
			}
		}
		foreignSecrets := r.Stdout
		run(t, other, "", []string{"PULUMI_CONFIG_PASSPHRASE=another-passphrase"}, "--non-interactive", "destroy", "--yes")

		for _, c := range []struct {
			name, project, data, want string
		}{
			{"resource out of order", "ingress", string(outOfOrder), "ingress"},
			{"URN of another stack", "ingress", otherStack, `stack "prod"`},
			{"secrets of another passphrase", "ca", foreignSecrets, "passphrase"},
		} {
			before := ok(t, dir, "stack", "export", "--project", c.project).Stdout
			file := filepath.Join(t.TempDir(), "bad.json")
			if err := os.WriteFile(file, []byte(c.data), 0o600); err != nil {
				t.Fatal(err)
			}
			r := run(t, dir, "", nil, "stack", "import", "--project", c.project, "--file", file)
			if r.Code == 0 || !strings.Contains(r.Stderr, c.want) || !strings.Contains(r.Stderr, "left as it was") {
				t.Errorf("%s: exit %d, %s", c.name, r.Code, r.Stderr)
			}
			if after := ok(t, dir, "stack", "export", "--project", c.project).Stdout; after != before {
				t.Errorf("%s: the refused import changed the state", c.name)
			}
		}
	})

	t.Run("a run is recorded once for the stack, in a project only when it changed it", func(t *testing.T) {
		count := func() (stackRuns, network int) {
			var entries []backend.HistoryEntry
			if err := json.Unmarshal([]byte(ok(t, dir, "--json", "stack", "history").Stdout), &entries); err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				switch e.Project {
				case "":
					stackRuns++
				case "network":
					network++
				}
			}
			return stackRuns, network
		}
		runs, n := count()
		ok(t, dir, "--non-interactive", "up", "--yes")
		if r, got := count(); r != runs+1 || got != n {
			t.Fatalf("after a no-op up: %d stack records (want %d), %d of network (want %d: it changed nothing)", r, runs+1, got, n)
		}
		ok(t, dir, "--non-interactive", "refresh", "--yes")
		if r, got := count(); r != runs+2 || got != n {
			t.Fatalf("after a refresh that found nothing: %d stack records (want %d), %d of network (want %d)", r, runs+2, got, n)
		}
	})

	t.Run("tags", func(t *testing.T) {
		ok(t, dir, "stack", "tag", "set", "owner", "platform")
		if out := ok(t, dir, "--json", "stack", "ls").Stdout; !strings.Contains(out, `"owner": "platform"`) {
			t.Fatalf("stack ls --json lacks the tag:\n%s", out)
		}
		ok(t, dir, "stack", "tag", "rm", "owner")
		if out := ok(t, dir, "stack", "tag", "ls").Stdout; strings.Contains(out, "owner") {
			t.Fatalf("the tag is still there:\n%s", out)
		}
	})

	t.Run("rm refuses a stack with resources", func(t *testing.T) {
		r := run(t, dir, "", nil, "stack", "rm", "dev", "--yes")
		if r.Code != 3 || !strings.Contains(r.Stderr, "still has resources") || !strings.Contains(r.Stderr, "destroy") {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "config", "pulumi", "Pulumi.dev.yaml")); err != nil {
			t.Fatal("the refused rm removed the config file")
		}
	})
}

// resources returns the resources of an export, for comparison.
func resources(t *testing.T, export string) string {
	t.Helper()
	var doc struct {
		Deployment struct {
			Resources json.RawMessage `json:"resources"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal([]byte(export), &doc); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	_ = json.Compact(&b, doc.Deployment.Resources)
	return b.String()
}

func TestStackInitSelectRm(t *testing.T) {
	dir := workspace(t)
	ok(t, dir, "stack", "init", "qa")
	if env, _ := os.ReadFile(filepath.Join(dir, "config", "pulumi", "environment")); !strings.Contains(string(env), "PULUMI_STACK=qa") {
		t.Fatalf("init did not select the stack: %q", env)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, "config", "pulumi", "Pulumi.qa.yaml"))
	if !strings.HasPrefix(string(cfg), "encryptionsalt: v1:") {
		t.Fatalf("no encryptionsalt: %q", cfg)
	}
	if r := run(t, dir, "", nil, "stack", "init", "qa"); r.Code == 0 || !strings.Contains(r.Stderr, "already exists") {
		t.Fatalf("a second init: exit %d %s", r.Code, r.Stderr)
	}
	ok(t, dir, "stack", "init", "prod")
	ok(t, dir, "stack", "select", "qa")
	if out := ok(t, dir, "stack", "ls").Stdout; !strings.Contains(out, "qa*") || !strings.Contains(out, "prod") {
		t.Fatalf("stack ls:\n%s", out)
	}
	ok(t, dir, "stack", "rm", "prod", "--yes")
	if _, err := os.Stat(filepath.Join(dir, "config", "pulumi", "Pulumi.prod.yaml")); !os.IsNotExist(err) {
		t.Fatal("stack rm left the config file")
	}
	if r := run(t, dir, "", nil, "stack", "rm", "nope", "--yes"); r.Code != 3 {
		t.Fatalf("rm of an unknown stack: exit %d", r.Code)
	}
}
