package backend

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// Pulumi's types of the files (sdk/go/common/apitype core.go and
// history.go, v3.274.0), field for field.
type pulumiVersionedCheckpoint struct {
	Version    int             `json:"version"`
	Features   []string        `json:"features,omitempty"`
	Checkpoint json.RawMessage `json:"checkpoint"`
}

type pulumiCheckpointV3 struct {
	Stack  string          `json:"stack"`
	Config json.RawMessage `json:"config,omitempty"`
	Latest json.RawMessage `json:"latest,omitempty"`
}

type pulumiUpdateInfo struct {
	Kind            string            `json:"kind"`
	StartTime       int64             `json:"startTime"`
	Message         string            `json:"message"`
	Environment     map[string]string `json:"environment"`
	Config          map[string]any    `json:"config"`
	Result          string            `json:"result"`
	EndTime         int64             `json:"endTime"`
	ResourceChanges map[string]int    `json:"resourceChanges,omitempty"`
}

// strictDecode decodes data into v, refusing fields v does not have.
func strictDecode(t *testing.T, what string, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s is not in Pulumi's format: %v\n%s", what, err, data)
	}
}

// TestFolderWritesPulumisLayout: what the folder writes is what Pulumi's DIY
// backend reads: meta.yaml of the project layout, a versioned checkpoint
// (Pulumi's own Go types, unknown fields refused) whose deployment passes
// Pulumi's published deployment schema, an update record per operation,
// the .bak of the replaced checkpoint, and while held a lock file in
// Pulumi's lock folder with the fields Pulumi names a holder by.
func TestFolderWritesPulumisLayout(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	commit(t, f, "network", "dev", statetest.Snapshot("network", "dev", 2), c)
	commit(t, f, "network", "dev", statetest.Snapshot("network", "dev", 3), c)

	if meta, _ := os.ReadFile(filepath.Join(f.Root, ".pulumi", "meta.yaml")); string(meta) != "version: 1\n" {
		t.Fatalf(".pulumi/meta.yaml = %q", meta)
	}
	data, err := os.ReadFile(filepath.Join(f.Root, ".pulumi", "stacks", "network", "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vc pulumiVersionedCheckpoint
	strictDecode(t, "the checkpoint", data, &vc)
	var cp pulumiCheckpointV3
	strictDecode(t, "the checkpoint's body", vc.Checkpoint, &cp)
	if vc.Version != 3 || cp.Stack != "organization/network/dev" || cp.Latest == nil {
		t.Fatalf("checkpoint: version %d, stack %q, latest %s", vc.Version, cp.Stack, cp.Latest)
	}
	if err := state.ValidateSchema([]byte(`{"version":3,"deployment":` + string(cp.Latest) + `}`)); err != nil {
		t.Fatalf("the checkpoint's deployment fails Pulumi's schema: %v", err)
	}
	bak, err := os.ReadFile(filepath.Join(f.Root, ".pulumi", "stacks", "network", "dev.json.bak"))
	if err != nil || bytes.Equal(bak, data) || !strings.Contains(string(bak), `"organization/network/dev"`) {
		t.Fatalf("the .bak is not the replaced checkpoint: %v", err)
	}
	records, _ := filepath.Glob(filepath.Join(f.Root, ".pulumi", "history", "network", "dev", "dev-*.history.json"))
	if len(records) != 2 {
		t.Fatalf("%d update records, want 2", len(records))
	}
	rec, _ := os.ReadFile(records[0])
	var info pulumiUpdateInfo
	if err := json.Unmarshal(rec, &info); err != nil || info.Kind != "update" || info.Result != "succeeded" || info.StartTime == 0 {
		t.Fatalf("update record %s: %+v, %v", records[0], info, err)
	}

	l, err := f.Lock(ctx, "network", "dev", CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join(f.Root, ".pulumi", "locks", "organization", "network", "dev", "runner.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pulumiLock struct {
		Pid       int    `json:"pid"`
		Username  string `json:"username"`
		Hostname  string `json:"hostname"`
		Timestamp string `json:"timestamp"`
	}
	if json.Unmarshal(body, &pulumiLock) != nil || pulumiLock.Pid != os.Getpid() || pulumiLock.Hostname == "" || pulumiLock.Username == "" || pulumiLock.Timestamp == "" {
		t.Fatalf("the lock file lacks Pulumi's fields: %s", body)
	}
	l.Unlock()
}

// TestFolderReadsWhatPulumiWrote: a folder the Pulumi CLI wrote (compact
// checkpoints, gocloud's .attrs beside them, a stack created and never
// updated, a gzipped checkpoint) is listed and read; a gzipped checkpoint is
// written back gzipped; a Pulumi lock file refuses runner naming its user.
func TestFolderReadsWhatPulumiWrote(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	export, err := state.Marshal(ctx, statetest.Snapshot("app", "prod", 2), c)
	if err != nil {
		t.Fatal(err)
	}
	cp, _ := ToCheckpoint("app", "prod", export)
	var compact bytes.Buffer
	json.Compact(&compact, cp)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(compact.Bytes())
	zw.Close()
	files := map[string][]byte{
		".pulumi/meta.yaml":                          []byte("version: 1\n"),
		".pulumi/stacks/app/prod.json.gz":            gz.Bytes(),
		".pulumi/stacks/app/prod.json.gz.attrs":      []byte(`{"user.content-type":"application/json"}`),
		".pulumi/stacks/web/dev.json":                []byte(`{"version":3,"checkpoint":{"stack":"organization/web/dev","latest":null}}`),
		".pulumi/stacks/web/dev.json.bak":            []byte(`{}`),
		".pulumi/locks/organization/web/dev/0a.json": []byte(`{"pid": 4242, "username": "alice", "hostname": "laptop", "timestamp": "2026-11-28T10:00:00Z"}`),
	}
	for name, data := range files {
		path := filepath.Join(f.Root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stacks, err := f.ListStacks(ctx)
	if err != nil || len(stacks) != 2 || stacks[0].Name != "dev" || stacks[0].Projects[0] != "web" || stacks[1].Name != "prod" || stacks[1].Projects[0] != "app" {
		t.Fatalf("ListStacks = %+v, %v", stacks, err)
	}
	snap, err := f.Load(ctx, "app", "prod", c)
	if err != nil || len(snap.Resources) != 4 {
		t.Fatalf("Load of the gzipped checkpoint = %v", err)
	}
	if empty, err := f.Load(ctx, "web", "dev", c); err != nil || len(empty.Resources) != 0 {
		t.Fatalf("Load of a stack Pulumi created and never updated = %v", err)
	}
	commit(t, f, "app", "prod", statetest.Snapshot("app", "prod", 3), c)
	if _, err := os.Stat(filepath.Join(f.Root, ".pulumi", "stacks", "app", "prod.json")); !os.IsNotExist(err) {
		t.Fatalf("a plain checkpoint was written beside the gzipped one: %v", err)
	}
	again, err := f.Load(ctx, "app", "prod", c)
	if err != nil || len(again.Resources) != 5 {
		t.Fatalf("Load after writing the gzipped checkpoint back = %v", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(mustRead(t, filepath.Join(f.Root, ".pulumi", "stacks", "app", "prod.json.gz"))))
	if err != nil {
		t.Fatalf("the checkpoint was not written back gzipped: %v", err)
	}
	zr.Close()
	zst := filepath.Join(f.Root, ".pulumi", "stacks", "api", "prod.json.zst")
	os.MkdirAll(filepath.Dir(zst), 0o755)
	os.WriteFile(zst, []byte{0x28, 0xb5, 0x2f, 0xfd}, 0o644)
	if _, err := f.Load(ctx, "api", "prod", c); err == nil || !strings.Contains(err.Error(), zst) {
		t.Fatalf("Load of a truncated zstd checkpoint = %v, want an error naming it", err)
	}
	if projects, _ := f.Projects(ctx, "prod"); len(projects) != 2 {
		t.Fatalf("Projects(prod) = %v, want app and api (the zstd one listed)", projects)
	}
	export, _ = state.Marshal(ctx, statetest.Snapshot("api", "prod", 2), c)
	cp, _ = ToCheckpoint("api", "prod", export)
	zdata, _ := Compress(ZstdExt, cp)
	os.WriteFile(zst, zdata, 0o644)
	if snap, err := f.Load(ctx, "api", "prod", c); err != nil || len(snap.Resources) != 4 {
		t.Fatalf("Load of a zstd checkpoint = %v", err)
	}
	commit(t, f, "api", "prod", statetest.Snapshot("api", "prod", 3), c)
	if plain, err := Decompress(ZstdExt, mustRead(t, zst)); err != nil || !strings.Contains(string(plain), `"organization/api/prod"`) {
		t.Fatalf("the checkpoint was not written back with zstd: %v", err)
	}
	if again, err := f.Load(ctx, "api", "prod", c); err != nil || len(again.Resources) != 5 {
		t.Fatalf("Load after writing the zstd checkpoint back = %v", err)
	}
	if _, err := f.Lock(ctx, "web", "dev", CurrentLockInfo("runner up")); err == nil || !strings.Contains(err.Error(), "the Pulumi CLI (alice)") {
		t.Fatalf("Lock beside a Pulumi lock file = %v", err)
	}
	if h, _ := f.LockHolder(ctx, "web", "dev"); h != nil {
		t.Fatalf("runner's refused lock was left behind: %+v", h)
	}
}

// TestFolderRefusesOtherLayouts: a meta.yaml naming another layout, or
// stacks in Pulumi's legacy layout, are refused before anything is written.
func TestFolderRefusesOtherLayouts(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"newer":  {".pulumi/meta.yaml": "version: 2\n"},
		"legacy": {".pulumi/stacks/dev.json": "{}"},
	} {
		t.Run(name, func(t *testing.T) {
			f := openTemp(t)
			for k, v := range files {
				path := filepath.Join(f.Root, filepath.FromSlash(k))
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, []byte(v), 0o644)
			}
			_, err := f.Lock(context.Background(), "network", "dev", CurrentLockInfo("runner up"))
			if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
				t.Fatalf("Lock = %v, want a refusal", err)
			}
			if _, err := os.Stat(filepath.Join(f.Root, ".pulumi", "locks")); !os.IsNotExist(err) {
				t.Fatal("the refused folder was written")
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// sameDeployment reports whether two exports hold the same deployment,
// whatever their spacing.
func sameDeployment(a, b []byte) bool {
	var ea, eb exportJSON
	if json.Unmarshal(a, &ea) != nil || json.Unmarshal(b, &eb) != nil {
		return false
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, ea.Deployment) == nil && json.Compact(&cb, eb.Deployment) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// TestSpliceCheckpoint: the migration's checkpoint is ToCheckpoint's, the
// deployment's bytes kept as they are.
func TestSpliceCheckpoint(t *testing.T) {
	export, _ := state.Marshal(context.Background(), statetest.Snapshot("network", "dev", 3), statetest.NewCrypter(1))
	cp, err := spliceCheckpoint("network", "dev", export)
	if err != nil {
		t.Fatal(err)
	}
	var vc pulumiVersionedCheckpoint
	strictDecode(t, "the checkpoint", cp, &vc)
	var body pulumiCheckpointV3
	strictDecode(t, "the checkpoint's body", vc.Checkpoint, &body)
	back, err := FromCheckpoint("x", cp)
	if vc.Version != 3 || body.Stack != "organization/network/dev" || err != nil || !sameDeployment(back, export) {
		t.Fatalf("spliced checkpoint %s: %v", cp, err)
	}
	if _, err := spliceCheckpoint("network", "dev", []byte(`{"version":2,"deployment":{}}`)); err == nil {
		t.Fatal("a version 2 deployment was spliced")
	}
}
