package state_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// revealed returns a marshalled snapshot with each ciphertext replaced by
// its plaintext form, as `stack export --show-secrets` writes it.
func revealed(t *testing.T, data []byte, c resource.Crypter) []byte {
	t.Helper()
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ct, ok := x["ciphertext"].(string); ok && x[state.SigKey] == state.SecretSig {
				pt, err := c.DecryptValue(context.Background(), ct)
				if err != nil {
					t.Fatal(err)
				}
				delete(x, "ciphertext")
				x["plaintext"] = pt
				return
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSealPlaintextSecrets(t *testing.T) {
	ctx := context.Background()
	c := statetest.NewCrypter(7)
	snap := statetest.Snapshot("network", "dev", 3)
	snap.Resources[1].Outputs["password"] = resource.Secret{Element: "hunter2-hunter2"}
	snap.Resources[2].Inputs["nested"] = map[string]any{"list": []any{resource.Secret{Element: map[string]any{"k": 12345678901234567.0}}}}
	stored, err := state.Marshal(ctx, snap, c)
	if err != nil {
		t.Fatal(err)
	}
	sp := &state.SecretsProvider{Type: "passphrase", State: json.RawMessage(`{"salt":"v1:abc"}`)}

	t.Run("ciphertext only is left byte for byte", func(t *testing.T) {
		out, n, err := state.SealPlaintextSecrets(ctx, stored, c, sp)
		if err != nil || n != 0 || string(out) != string(stored) {
			t.Fatalf("n=%d err=%v, changed: %v", n, err, string(out) != string(stored))
		}
	})

	t.Run("plaintext is encrypted and reads back the same", func(t *testing.T) {
		plain := revealed(t, stored, c)
		if !strings.Contains(string(plain), "hunter2-hunter2") {
			t.Fatal("the revealed form lacks the secret")
		}
		out, n, err := state.SealPlaintextSecrets(ctx, plain, c, sp)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Count(string(plain), `"plaintext"`); n != want || n < 3 {
			t.Errorf("encrypted %d secrets, want %d", n, want)
		}
		for _, leak := range []string{"hunter2-hunter2", `"plaintext"`, "12345678901234567"} {
			if strings.Contains(string(out), leak) {
				t.Errorf("the sealed deployment holds %s", leak)
			}
		}
		if !strings.Contains(string(out), `"secrets_providers":{"state":{"salt":"v1:abc"},"type":"passphrase"}`) {
			t.Errorf("the secrets provider is not the stack's: %s", out)
		}
		back, err := state.Unmarshal(ctx, out, c)
		if err != nil {
			t.Fatal(err)
		}
		orig := mustUnmarshal(t, stored, c)
		orig.SecretsProvider = sp
		if got, want := canonical(back), canonical(orig); got != want {
			t.Errorf("the sealed state differs\n got %s\nwant %s", got, want)
		}
	})

	t.Run("numbers are kept as written", func(t *testing.T) {
		data := `{"version":3,"deployment":{"resources":[{"urn":"u","outputs":{"big":9007199254740993,"s":{"` +
			state.SigKey + `":"` + state.SecretSig + `","plaintext":"\"x\""}}}]}}`
		out, n, err := state.SealPlaintextSecrets(ctx, []byte(data), c, nil)
		if err != nil || n != 1 || !strings.Contains(string(out), `"big":9007199254740993`) {
			t.Fatalf("n=%d err=%v\n%s", n, err, out)
		}
	})

	t.Run("bad plaintext forms are named without the value", func(t *testing.T) {
		for _, c2 := range []struct{ secret, want string }{
			{`{"plaintext": 5}`, "is not a string"},
			{`{"plaintext": "not json top-secret"}`, "is not the JSON encoding"},
			{`{}`, "neither ciphertext nor plaintext"},
		} {
			obj := strings.Replace(c2.secret, "{", `{"`+state.SigKey+`":"`+state.SecretSig+`",`, 1)
			obj = strings.Replace(obj, ",}", "}", 1)
			data := `{"version":3,"deployment":{"resources":[{"urn":"u","outputs":{"x":` + obj + `}}]}}`
			_, _, err := state.SealPlaintextSecrets(ctx, []byte(data), c, sp)
			if err == nil || !strings.Contains(err.Error(), c2.want) || !strings.Contains(err.Error(), ".outputs.x") {
				t.Errorf("%s: %v", c2.secret, err)
			}
			if err != nil && strings.Contains(err.Error(), "top-secret") {
				t.Errorf("the error quotes the plaintext: %v", err)
			}
		}
	})
}

func mustUnmarshal(t *testing.T, data []byte, c resource.Crypter) *state.Snapshot {
	t.Helper()
	s, err := state.Unmarshal(context.Background(), data, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
