package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/runnerhq/runner/engine/backend/bucket"
)

// projectRecords counts the records of project in `stack history --json`.
func projectRecords(t *testing.T, dir string, env []string, project string) int {
	t.Helper()
	r := run(t, dir, "", env, "--json", "stack", "history")
	var entries []struct {
		Project string `json:"project"`
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &entries) != nil {
		t.Fatalf("stack history --json exited %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	n := 0
	for _, e := range entries {
		if e.Project == project {
			n++
		}
	}
	return n
}

// indent re-indents a checkpoint as an older runner (or `jq .`) leaves it.
func indent(t *testing.T, data []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, data, "", "    "); err != nil {
		t.Fatal(err)
	}
	return append(out.Bytes(), '\n')
}

// TestAnIndentedCheckpointIsNotRewrittenByANoopUp: a checkpoint written
// indented (by an older runner, or re-indented by hand to read it) holds
// the same state as the compact one runner writes, so an up that changes
// nothing leaves it as it is and records nothing in the project's history,
// on the folder and in a bucket. Before, the whitespace counted as a
// change: every such project was rewritten, and got a history record of a
// run that changed nothing.
func TestAnIndentedCheckpointIsNotRewrittenByANoopUp(t *testing.T) {
	up := []string{"--non-interactive", "up", "--yes"}
	t.Run("folder", func(t *testing.T) {
		dir := deployable(t)
		ok(t, dir, up...)
		path := filepath.Join(dir, ".runner", ".pulumi", "stacks", "app", "dev.json")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		indented := indent(t, data)
		if err := os.WriteFile(path, indented, 0o600); err != nil {
			t.Fatal(err)
		}
		before := projectRecords(t, dir, nil, "app")
		ok(t, dir, up...)
		if now, _ := os.ReadFile(path); !bytes.Equal(now, indented) {
			t.Errorf("a no-op up rewrote the indented checkpoint %s", path)
		}
		if n := projectRecords(t, dir, nil, "app"); n != before {
			t.Errorf("a no-op up added %d history records of project app", n-before)
		}
	})
	t.Run("s3", func(t *testing.T) {
		_, dir, env, obj := s3Deployed(t)
		ctx := context.Background()
		key := ".pulumi/stacks/app/dev.json"
		o, err := obj.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		indented := indent(t, o.Data)
		if _, err := obj.Put(ctx, key, indented, bucket.Cond{}); err != nil {
			t.Fatal(err)
		}
		before := projectRecords(t, dir, env, "app")
		if r := run(t, dir, "", env, up...); r.Code != 0 {
			t.Fatalf("no-op up exited %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		if o, err := obj.Get(ctx, key); err != nil || !bytes.Equal(o.Data, indented) {
			t.Errorf("a no-op up rewrote the indented checkpoint %s (%v)", key, err)
		}
		if n := projectRecords(t, dir, env, "app"); n != before {
			t.Errorf("a no-op up added %d history records of project app", n-before)
		}
	})
}
