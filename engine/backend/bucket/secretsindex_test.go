package bucket_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/bucket"
)

func checkpointWithSalt(project, salt string) []byte {
	return fmt.Appendf(nil, `{"version":3,"checkpoint":{"stack":"organization/%s/dev","latest":{"manifest":{"time":"2026-11-28T00:00:00Z","magic":"","version":""},`+
		`"secrets_providers":{"type":"passphrase","state":{"salt":%q}},"resources":[]}}}`, project, salt)
}

// TestStackSecretsIndex: what the stack's checkpoints record of their
// secrets is read from its index when the index names each checkpoint by
// the ETag the listing gives (no checkpoint read); a checkpoint another
// writer replaced is read, and its new salt seen; an index that does not
// parse is no index. The index is written when a run is recorded, and only
// when it changed.
func TestStackSecretsIndex(t *testing.T) {
	ctx := context.Background()
	mem := bucket.NewMemory()
	for _, p := range []string{"app", "network"} {
		if _, err := mem.Put(ctx, backend.DIYCheckpointKey(p, "dev"), checkpointWithSalt(p, "v1:first-"+p), bucket.Cond{}); err != nil {
			t.Fatal(err)
		}
	}
	// check runs StackSecrets in a fresh process, then records a run;
	// it returns the salts seen, the checkpoints read and whether the
	// index was written.
	check := func(t *testing.T) (salts map[string]string, read, wrote int) {
		t.Helper()
		c := &bucket.Counter{Objects: mem, Log: true}
		s := bucket.New(c)
		secrets, err := s.StackSecrets(ctx, "dev")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RecordStackRun(ctx, "dev", backend.HistoryRecord{Kind: "update", Result: "succeeded"}); err != nil {
			t.Fatal(err)
		}
		salts = map[string]string{}
		for _, sec := range secrets {
			salts[sec.Project] = sec.Salt()
		}
		for _, r := range c.Requests() {
			switch {
			case strings.HasPrefix(r, "GET .pulumi/stacks/"):
				read++
			case strings.HasPrefix(r, "PUT") && strings.HasSuffix(r, ".runner/stacks/dev/secrets.json"):
				wrote++
			}
		}
		return salts, read, wrote
	}
	want := map[string]string{"app": "v1:first-app", "network": "v1:first-network"}
	steps := []struct {
		name        string
		before      func(t *testing.T)
		read, wrote int
	}{
		{"no index: every checkpoint is read, the index written", nil, 2, 1},
		{"the index describes every checkpoint: none read, nothing written", nil, 0, 0},
		{"another writer replaced network's checkpoint: it alone is read", func(t *testing.T) {
			want["network"] = "v1:second-network"
			if _, err := mem.Put(ctx, backend.DIYCheckpointKey("network", "dev"), checkpointWithSalt("network", want["network"]), bucket.Cond{}); err != nil {
				t.Fatal(err)
			}
		}, 1, 1},
		{"the index as written then is used", nil, 0, 0},
		{"an index that does not parse is none", func(t *testing.T) {
			if _, err := mem.Put(ctx, ".runner/stacks/dev/secrets.json", []byte("{not json"), bucket.Cond{}); err != nil {
				t.Fatal(err)
			}
		}, 2, 1},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			if step.before != nil {
				step.before(t)
			}
			salts, read, wrote := check(t)
			if fmt.Sprint(salts) != fmt.Sprint(want) {
				t.Errorf("salts %v, want %v", salts, want)
			}
			if read != step.read || wrote != step.wrote {
				t.Errorf("read %d checkpoints and wrote the index %d times, want %d and %d", read, wrote, step.read, step.wrote)
			}
		})
	}
}
