package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runnerhq/runner/internal/killspan"
)

// migrated is the message of the one-time move to Pulumi's layout.
const migrated = "to Pulumi's DIY layout"

// toOldLayout rewrites the dev stack of the workspace dir, deployed by this
// runner, as runner's old folder layout wrote it (each project's export as
// stacks/dev/<project>/snapshot.json, the history as history.jsonl oldest
// first, the tags as tags.json), and removes the new layout: a workspace as
// an older runner left it.
func toOldLayout(t *testing.T, dir string, projects []string) {
	t.Helper()
	old := filepath.Join(dir, ".runner", "stacks", "dev")
	exports := map[string]string{}
	for _, p := range projects {
		exports[p] = ok(t, dir, "-s", "dev", "stack", "export", "--project", p).Stdout
	}
	var entries []json.RawMessage
	if err := json.Unmarshal([]byte(ok(t, dir, "--json", "-s", "dev", "stack", "history").Stdout), &entries); err != nil {
		t.Fatal(err)
	}
	var lines bytes.Buffer
	for i := len(entries) - 1; i >= 0; i-- {
		var compact bytes.Buffer
		json.Compact(&compact, entries[i])
		lines.Write(append(compact.Bytes(), '\n'))
	}
	tags := ok(t, dir, "--json", "-s", "dev", "stack", "tag", "ls").Stdout
	files := map[string]string{"history.jsonl": lines.String(), "tags.json": tags}
	for p, export := range exports {
		os.MkdirAll(filepath.Join(old, p), 0o755)
		files[filepath.Join(p, "snapshot.json")] = export
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(old, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{".pulumi", ".runner"} {
		if err := os.RemoveAll(filepath.Join(dir, ".runner", d)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOldLayoutMigratesOnce: a workspace in runner's old folder layout is
// moved to Pulumi's DIY layout by the first command, with one message on
// standard error, keeping its stacks, state, history, tags and config; the
// next commands say nothing more, a preview plans nothing, and the state
// is where `pulumi login file://<workspace>/.runner` reads it.
func TestOldLayoutMigratesOnce(t *testing.T) {
	dir := deployable(t)
	projects := []string{"network", "secrets"}
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network", "--target", "secrets")
	ok(t, dir, "-s", "dev", "stack", "tag", "set", "owner", "ops team")
	before := map[string]string{}
	for _, args := range [][]string{{"--json", "stack", "history"}, {"--json", "stack", "tag", "ls"}, {"--json", "stack", "ls"},
		{"stack", "output", "--project", "network"}, {"config", "get", "app:adminPassword"}} {
		before[strings.Join(args, " ")] = ok(t, dir, append([]string{"-s", "dev"}, args...)...).Stdout
	}
	cfg, _ := os.ReadFile(stackFile(dir))
	toOldLayout(t, dir, projects)

	r := ok(t, dir, "-s", "dev", "--json", "stack", "ls")
	if n := strings.Count(r.Stderr, migrated); n != 1 {
		t.Fatalf("the first command on the old layout said %d times that it migrated, want once:\n%s", n, r.Stderr)
	}
	for args, want := range before {
		r := ok(t, dir, append([]string{"-s", "dev"}, strings.Split(args, " ")...)...)
		if strings.Contains(r.Stderr, migrated) {
			t.Errorf("runner %s migrated again:\n%s", args, r.Stderr)
		}
		if r.Stdout != want {
			t.Errorf("runner %s after the migration:\n%s\nwant, as before:\n%s", args, r.Stdout, want)
		}
	}
	if after, _ := os.ReadFile(stackFile(dir)); !bytes.Equal(after, cfg) {
		t.Error("the migration changed the stack config")
	}
	for _, p := range projects {
		if _, err := os.Stat(checkpointFile(dir, "dev", p)); err != nil {
			t.Errorf("no checkpoint of %s where Pulumi keeps it: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".runner", "stacks")); !os.IsNotExist(err) {
		t.Errorf("the old layout is still in place: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".runner", ".runner", "old-layout", "stacks", "dev", "network", "snapshot.json")); err != nil {
		t.Errorf("the old files were not kept: %v", err)
	}
	for p, row := range summary(t, ok(t, dir, "-s", "dev", "--json", "--non-interactive", "preview", "--target", "network", "--target", "secrets").Stdout) {
		if n := changes(row); n != 0 {
			t.Errorf("preview after the migration plans %d changes in %s", n, p)
		}
	}
}

// oldLayoutTemplate writes, under root, runner's old folder layout of
// stacks × projects made-up states (each a root stack with outputs and n
// components, a history and tags), for the kill test.
func oldLayoutTemplate(t *testing.T, root string, stacks, projects, n int) {
	t.Helper()
	for s := 0; s < stacks; s++ {
		stack := fmt.Sprintf("s%02d", s)
		dir := filepath.Join(root, ".runner", "stacks", stack)
		var hist bytes.Buffer
		for p := 0; p < projects; p++ {
			project := fmt.Sprintf("p%d", p)
			rootURN := fmt.Sprintf("urn:pulumi:%s::%s::pulumi:pulumi:Stack::%s-%s", stack, project, project, stack)
			res := []string{fmt.Sprintf(`{"urn":%q,"custom":false,"type":"pulumi:pulumi:Stack","outputs":{"n":%d}}`, rootURN, n)}
			for i := 0; i < n; i++ {
				res = append(res, fmt.Sprintf(`{"urn":"urn:pulumi:%s::%s::pulumi:pulumi:Stack$my:index:Thing::t%d","custom":false,"type":"my:index:Thing","parent":%q,"outputs":{"i":%d,"pad":%q}}`,
					stack, project, i, rootURN, i, strings.Repeat("x", 200)))
			}
			export := `{"version":3,"deployment":{"manifest":{"time":"2026-01-02T03:04:05Z","magic":"","version":""},"resources":[` + strings.Join(res, ",") + "]}}\n"
			os.MkdirAll(filepath.Join(dir, project), 0o755)
			if err := os.WriteFile(filepath.Join(dir, project, "snapshot.json"), []byte(export), 0o600); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&hist, `{"project":%q,"kind":"update","result":"succeeded","startTime":"2026-01-02T03:04:0%dZ","endTime":"2026-01-02T03:04:0%dZ","resourceChanges":{"create":%d}}`+"\n", project, p, p, n+1)
		}
		os.WriteFile(filepath.Join(dir, "history.jsonl"), hist.Bytes(), 0o600)
		os.WriteFile(filepath.Join(dir, "tags.json"), []byte(`{"owner":"`+stack+`"}`), 0o600)
	}
}

// TestMigrationKilledAnywhereConverges: the one-time migration of a large
// old-layout folder is killed with SIGKILL at random moments of a first
// command; the next command finishes or restarts it: every stack, project,
// history and tag is there, the old layout gone (kept aside), no marker of
// an unfinished attempt left, and it is said at most once after the kill.
func TestMigrationKilledAnywhereConverges(t *testing.T) {
	const stacks, projects, resources = 12, 4, 150
	template := t.TempDir()
	oldLayoutTemplate(t, template, stacks, projects, resources)
	copyTree := func() string {
		dir := filepath.Join(t.TempDir(), "ws")
		if err := os.CopyFS(dir, os.DirFS(template)); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	start := time.Now()
	ok(t, copyTree(), "stack", "ls")
	span := killspan.New(time.Since(start))
	inside := 0
	for round := 0; round < 12; round++ {
		dir := copyTree()
		cmd := exec.Command(binary, "--root", dir, "stack", "ls")
		cmd.Env = baseEnv()
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
			span.Missed(time.Since(began))
		case <-time.After(span.Draw()):
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
			inside++
		}
		r := ok(t, dir, "--json", "stack", "ls")
		if n := strings.Count(r.Stderr, migrated); n > 1 {
			t.Errorf("round %d: the run after the kill said %d times that it migrated", round, n)
		}
		var list []struct {
			Name     string   `json:"name"`
			Projects []any    `json:"projects"`
			Tags     []string `json:"-"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || len(list) != stacks {
			t.Fatalf("round %d: stack ls lists %d stacks (%v), want %d:\n%s", round, len(list), err, stacks, r.Stdout)
		}
		for _, s := range []string{"s00", fmt.Sprintf("s%02d", stacks-1)} {
			if h := ok(t, dir, "--json", "-s", s, "stack", "history").Stdout; strings.Count(h, `"kind"`) != projects {
				t.Errorf("round %d: stack %s has %d history entries, want %d", round, s, strings.Count(h, `"kind"`), projects)
			}
			if tags := ok(t, dir, "--json", "-s", s, "stack", "tag", "ls").Stdout; !strings.Contains(tags, `"owner": "`+s+`"`) {
				t.Errorf("round %d: stack %s lost its tags: %s", round, s, tags)
			}
			out := ok(t, dir, "-s", s, "stack", "export", "--project", fmt.Sprintf("p%d", projects-1)).Stdout
			if !strings.Contains(out, fmt.Sprintf("Thing::t%d", resources-1)) || !strings.Contains(out, fmt.Sprintf(`"n": %d`, resources)) {
				t.Errorf("round %d: stack %s lost state: %.300s", round, s, out)
			}
		}
		for _, gone := range []string{filepath.Join(dir, ".runner", "stacks"), filepath.Join(dir, ".runner", ".runner", "migrating.json")} {
			if _, err := os.Stat(gone); !os.IsNotExist(err) {
				t.Errorf("round %d: %s is left after the migration converged", round, gone)
			}
		}
	}
	t.Logf("%d of 12 kills landed inside the first command (span %s)", inside, span.Len())
}

// TestMigrationFourAtOnce: four commands started together on an old-layout
// folder: one migrates, the others wait for it; all succeed, and the move
// is said once (before: a waiter whose migrator finished first crashed on
// a nil lock).
func TestMigrationFourAtOnce(t *testing.T) {
	dir := t.TempDir()
	oldLayoutTemplate(t, dir, 6, 4, 150)
	results := make(chan Result, 4)
	for i := 0; i < 4; i++ {
		go func() { results <- run(t, dir, "", nil, "stack", "ls") }()
	}
	said := 0
	for i := 0; i < 4; i++ {
		r := <-results
		if r.Code != 0 || strings.Count(r.Stdout, "p0,p1,p2,p3") != 6 {
			t.Errorf("a command started with three others: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		said += strings.Count(r.Stderr, migrated)
	}
	if said != 1 {
		t.Errorf("the move was said %d times, want once", said)
	}
}
