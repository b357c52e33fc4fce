package state_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

func TestRoundTripWithSecrets(t *testing.T) {
	ctx := context.Background()
	c := statetest.NewCrypter(1)
	snap := statetest.Snapshot("network", "dev", 3)
	snap.Resources[2].Outputs["nested"] = map[string]any{"deep": resource.Secret{Element: map[string]any{"k": []any{float64(1), "tw0-secret"}}}}
	snap.Resources[2].Inputs["later"] = resource.Computed{}
	snap.Resources[2].RetainOnDelete = true
	snap.Resources[2].IgnoreChanges = []string{"size"}
	snap.Resources[2].CustomTimeouts = state.CustomTimeouts{Create: 90 * time.Second, Delete: 1500 * time.Millisecond}
	snap.Resources[2].ImportID = "i-123"
	snap.Resources[3].DeletedWith = snap.Resources[2].URN
	snap.Resources[2].InitErrors = []string{"not ready"}
	snap.Resources[3].Protect, snap.Resources[3].Delete = true, true
	snap.PendingOperations = []state.PendingOperation{{Resource: statetest.Thing("network", "dev", 9, time.Now()), Type: state.OperationCreating}}

	data, err := state.Marshal(ctx, snap, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"pw-r00000", "s3cr3t", "tw0-secret"} {
		if strings.Contains(string(data), plain) {
			t.Errorf("the serialized snapshot holds the plaintext secret %q", plain)
		}
	}
	if !strings.Contains(string(data), `"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270"`) {
		t.Errorf("no Pulumi secret object in:\n%s", data)
	}
	if !strings.Contains(string(data), `"customTimeouts":{"create":90,"delete":1.5}`) {
		t.Errorf("customTimeouts are not Pulumi's float seconds in:\n%s", data)
	}
	if !strings.Contains(string(data), `"deletedWith":"`+string(snap.Resources[2].URN)+`"`) {
		t.Errorf("deletedWith is not recorded as Pulumi records it in:\n%s", data)
	}
	if !strings.Contains(string(data), `"later":"`+resource.UnknownStringValue+`"`) {
		t.Errorf("Computed is not written as the unknown sentinel")
	}
	got, err := state.Unmarshal(ctx, data, c)
	if err != nil {
		t.Fatal(err)
	}
	if !sameSnapshot(snap, got) {
		t.Fatalf("round trip changed the snapshot:\nwant %s\ngot  %s", dump(t, snap), dump(t, got))
	}
	if got.Manifest.Magic != (state.Manifest{Version: "v0.1.0"}).NewMagic() {
		t.Errorf("magic = %q", got.Manifest.Magic)
	}
	if _, err := state.Unmarshal(ctx, data, statetest.NewCrypter(2)); err == nil || strings.Contains(err.Error(), "pw-") {
		t.Errorf("decrypting with the wrong key: err = %v", err)
	}
	if _, err := state.Unmarshal(ctx, data, nil); err == nil {
		t.Errorf("decoding secrets without a crypter succeeded")
	}
	opaque, err := state.UnmarshalOpaque(data)
	if err != nil || len(opaque.Resources) != len(snap.Resources) {
		t.Fatalf("opaque decode: %v", err)
	}
}

func TestNumbersRoundTripAsFloat64(t *testing.T) {
	ctx := context.Background()
	r := statetest.Thing("p", "s", 1, time.Now())
	r.Inputs = resource.PropertyMap{"int": 3, "big": int64(1) << 50, "f": 0.25}
	raw, err := state.MarshalResource(ctx, r, statetest.NewCrypter(1))
	if err != nil {
		t.Fatal(err)
	}
	back, err := state.UnmarshalResource(ctx, raw, statetest.NewCrypter(1))
	if err != nil {
		t.Fatal(err)
	}
	want := resource.PropertyMap{"int": float64(3), "big": float64(int64(1) << 50), "f": 0.25}
	if !resource.DeepEqual(map[string]any(want), map[string]any(back.Inputs)) {
		t.Fatalf("inputs = %#v", back.Inputs)
	}
}

// sameSnapshot compares two snapshots by their plaintext JSON form.
func sameSnapshot(a, b *state.Snapshot) bool {
	return canonical(a) == canonical(b)
}

func canonical(s *state.Snapshot) string {
	data, err := state.Marshal(context.Background(), s, plainCrypter{})
	if err != nil {
		return "error: " + err.Error()
	}
	return string(data)
}

// plainCrypter "encrypts" to the plaintext, so that equal snapshots encode equally.
type plainCrypter struct{}

func (plainCrypter) EncryptValue(_ context.Context, s string) (string, error) { return s, nil }
func (plainCrypter) DecryptValue(_ context.Context, s string) (string, error) { return s, nil }

func dump(t *testing.T, s *state.Snapshot) string { t.Helper(); return canonical(s) }

func TestSchemaValidation(t *testing.T) {
	dir := statetest.SchemaDir(t)
	strict, err := state.CompileSchema(func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	full := statetest.Snapshot("network", "dev", 5)
	full.Resources[3].RetainOnDelete, full.Resources[3].IgnoreChanges = true, []string{"size"}
	full.Resources[4].Inputs["unknown"] = resource.Computed{}
	full.PendingOperations = []state.PendingOperation{{Resource: statetest.Thing("network", "dev", 9, time.Now()), Type: state.OperationDeleting}}
	data, err := state.Marshal(ctx, full, statetest.NewCrypter(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := state.ValidateSchema(data); err != nil {
		t.Fatalf("runner's snapshot fails the (embedded) schema: %v", err)
	}

	// Against Pulumi's published files, unmodified (the repository's copies,
	// which TestEmbeddedSchemasMatchShared compares with the shared ones):
	// the snapshot, with the fields
	// Pulumi writes beyond its published schema set aside, validates.
	doc := parse(t, data)
	if err := state.StripExtensions(doc); err != nil {
		t.Fatal(err)
	}
	if err := strict.Validate(doc); err != nil {
		t.Fatalf("runner's snapshot fails Pulumi's published schema: %v", err)
	}
	// A snapshot without those fields validates as it is.
	bare := statetest.Snapshot("network", "dev", 3)
	for _, r := range bare.Resources {
		r.Created, r.Modified = nil, nil
	}
	data, err = state.Marshal(ctx, bare, statetest.NewCrypter(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := strict.Validate(parse(t, data)); err != nil {
		t.Fatalf("a snapshot with no extension fields fails Pulumi's published schema: %v", err)
	}
	// The schema is really checked: a bad document fails.
	bad := strings.Replace(string(data), `"custom":true`, `"custom":"yes"`, 1)
	if err := state.ValidateSchema([]byte(bad)); err == nil {
		t.Fatal("a resource with a string for custom passes the schema")
	}
}

func TestEmbeddedSchemasMatchShared(t *testing.T) {
	dir := statetest.SharedSchemaDir(t)
	for _, name := range state.SchemaFiles {
		shared, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		embedded, err := os.ReadFile(filepath.Join("schema", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(shared) != string(embedded) {
			t.Errorf("schema/%s differs from the shared copy; re-copy it", name)
		}
	}
}

func parse(t *testing.T, data []byte) any {
	t.Helper()
	var doc any
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}
