package backend_test

import (
	"context"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// TestSameCheckpoint: a state marshalled again (secrets encrypted with new
// nonces, a new manifest time) is the same; any change of a value, a
// secret's plaintext, or a string that only looks like a ciphertext is not.
func TestSameCheckpoint(t *testing.T) {
	ctx := context.Background()
	c := statetest.NewCrypter(7)
	checkpoint := func(t *testing.T, snap *state.Snapshot) []byte {
		t.Helper()
		export, err := state.Marshal(ctx, snap, c)
		if err != nil {
			t.Fatal(err)
		}
		cp, err := backend.ToCheckpoint("network", "dev", export)
		if err != nil {
			t.Fatal(err)
		}
		return cp
	}
	base := checkpoint(t, statetest.Snapshot("network", "dev", 5))
	tests := []struct {
		name   string
		change func(*state.Snapshot)
		same   bool
	}{
		{"marshalled again", func(*state.Snapshot) {}, true},
		{"another manifest time", func(s *state.Snapshot) { s.Manifest.Time = time.Now() }, true},
		{"a secret's plaintext", func(s *state.Snapshot) { s.Resources[3].Inputs["password"] = resource.Secret{Element: "pw-other"} }, false},
		{"a plain value", func(s *state.Snapshot) { s.Resources[4].Outputs["arn"] = "arn:test:other" }, false},
		{"a secret made plain", func(s *state.Snapshot) { s.Resources[2].Inputs["password"] = "pw-r00000" }, false},
		{"a plain property named ciphertext", func(s *state.Snapshot) {
			s.Resources[2].Inputs["ciphertext"] = "v1:AAAA"
		}, false},
		{"resources in another order", func(s *state.Snapshot) {
			s.Resources[5], s.Resources[6] = s.Resources[6], s.Resources[5]
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := statetest.Snapshot("network", "dev", 5)
			tt.change(snap)
			again := checkpoint(t, snap)
			if string(again) == string(base) && !tt.same {
				t.Fatal("the checkpoints are equal bytes: the case tests nothing")
			}
			if got := backend.SameCheckpoint(ctx, base, again, c); got != tt.same {
				t.Fatalf("SameCheckpoint = %v, want %v", got, tt.same)
			}
			if got := backend.SameCheckpoint(ctx, again, base, c); got != tt.same {
				t.Fatalf("SameCheckpoint, the other way = %v, want %v", got, tt.same)
			}
		})
	}
	if backend.SameCheckpoint(ctx, base, checkpoint(t, statetest.Snapshot("network", "dev", 5)), statetest.NewCrypter(8)) {
		t.Fatal("ciphertexts another crypter cannot decrypt were taken as the same")
	}
}

// TestSameCheckpointIgnoresIndentation: a checkpoint and its indented form
// hold the same state; whitespace inside a string is still a change.
func TestSameCheckpointIgnoresIndentation(t *testing.T) {
	ctx := context.Background()
	c := statetest.NewCrypter(7)
	compact := []byte(`{"version":3,"checkpoint":{"latest":{"manifest":{"time":"2026-11-28T10:00:00Z"},"resources":[{"urn":"a b","n":[1,2]}]}}}`)
	tests := []struct {
		name  string
		other string
		same  bool
	}{
		{"indented", "{\n    \"version\": 3,\n    \"checkpoint\": {\n        \"latest\": {\n            \"manifest\": {\n                \"time\": \"2026-11-29T10:00:00Z\"\n            },\n            \"resources\": [\n                {\"urn\": \"a b\", \"n\": [ 1, 2 ]}\r\n            ]\n        }\n    }\n}\n", true},
		{"whitespace in a string", `{"version":3,"checkpoint":{"latest":{"manifest":{"time":"2026-11-28T10:00:00Z"},"resources":[{"urn":"a  b","n":[1,2]}]}}}`, false},
		{"indented, a value changed", "{\n  \"version\": 3, \"checkpoint\": {\"latest\": {\"manifest\": {\"time\": \"x\"}, \"resources\": [{\"urn\": \"a b\", \"n\": [1, 3]}]}}}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := backend.SameCheckpoint(ctx, compact, []byte(tt.other), c); got != tt.same {
				t.Fatalf("SameCheckpoint = %v, want %v", got, tt.same)
			}
		})
	}
}
