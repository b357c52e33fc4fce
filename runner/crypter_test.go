package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/config"
)

// writeState writes a project's snapshot on the dev stack recording
// provider (a secrets_providers JSON object, "" for none), with a secret
// value when secret is set.
func writeState(t *testing.T, s *Session, project, provider string, secret bool) string {
	t.Helper()
	p := filepath.Join(s.Workspace, ".runner", ".pulumi", "stacks", project, "dev.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	sp := ""
	if provider != "" {
		sp = `,"secrets_providers":` + provider
	}
	res := `{"urn":"urn:pulumi:dev::a::pulumi:pulumi:Stack::a-dev","type":"pulumi:pulumi:Stack"}`
	if secret {
		res = `{"urn":"urn:pulumi:dev::a::pulumi:pulumi:Stack::a-dev","type":"pulumi:pulumi:Stack","outputs":{"x":{"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270","ciphertext":"v1:a:b"}}}`
	}
	body := fmt.Sprintf(`{"version":3,"checkpoint":{"stack":"organization/%s/dev","latest":{"manifest":{"time":"2024-01-01T00:00:00Z","magic":"","version":""}%s,"resources":[%s]}}}`, project, sp, res)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func saltProvider(salt string) string {
	return fmt.Sprintf(`{"type":"passphrase","state":{"salt":%q}}`, salt)
}

func TestCrypterChoosesTheSaltTheStateRecords(t *testing.T) {
	// A salt of the test passphrase, and another one.
	base := session(t, false, nil, "")
	c, err := base.Crypter()
	if err != nil {
		t.Fatal(err)
	}
	salt := c.EncryptionSalt()
	other, err := config.NewCrypter("test", config.WithIterations(testIterations))
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := config.NewCrypter("another passphrase", config.WithIterations(testIterations))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		config   string
		states   map[string]string // project -> secrets_providers ("" none)
		secrets  bool              // the states hold a secret
		wantSalt string            // the salt used and in the file ("" with wantErr)
		wantErr  []string
	}{
		{name: "new stack", config: "config:\n  t:name: abc\n", wantSalt: "fresh"},
		{name: "state without secrets or provider", config: "config: {}\n", states: map[string]string{"a": ""}, wantSalt: "fresh"},
		{name: "salt from the state", config: "config:\n  t:name: abc\n", states: map[string]string{"a": saltProvider(salt), "b": ""}, secrets: true, wantSalt: salt},
		{name: "empty salt from the state", config: "encryptionsalt:\nconfig: {}\n", states: map[string]string{"a": saltProvider(salt)}, wantSalt: salt},
		{name: "file and state agree", config: "encryptionsalt: " + salt + "\n", states: map[string]string{"a": saltProvider(salt)}, wantSalt: salt},
		// A state the Pulumi CLI wrote with the project's own stack config:
		// another salt of the same passphrase, read besides the file's.
		{name: "file and state disagree", config: "encryptionsalt: " + other.EncryptionSalt() + "\n", states: map[string]string{"a": saltProvider(salt)},
			wantSalt: other.EncryptionSalt()},
		{name: "file and state of another passphrase disagree", config: "encryptionsalt: " + other.EncryptionSalt() + "\n", states: map[string]string{"a": saltProvider(foreign.EncryptionSalt())},
			wantErr: []string{"Pulumi.dev.yaml differs from the salt recorded in the state of project a (", "a/dev.json", "the passphrase does not open that salt either", "run again with that passphrase or restore an earlier copy with `runner --stack dev stack import --project a --file COPY`"}},
		{name: "states disagree", config: "config: {}\n", states: map[string]string{"a": saltProvider(salt), "b": saltProvider(other.EncryptionSalt())},
			wantErr: []string{"record different salts", "project a", "project b"}},
		{name: "secrets in the state, no salt anywhere", config: "config: {}\n", states: map[string]string{"a": ""}, secrets: true,
			wantErr: []string{"the state of project a", "holds secrets but records no salt"}},
		{name: "secure config value, no salt anywhere", config: "config:\n  t:name: abc\n  t:password:\n    secure: v1:a:b\n",
			wantErr: []string{"line 3: t:password is a secret, but the file has no encryptionsalt"}},
		{name: "the state's salt is of another passphrase", config: "config: {}\n", states: map[string]string{"a": saltProvider(foreign.EncryptionSalt())},
			wantErr: []string{"incorrect passphrase for stack dev: the passphrase from the environment variable PULUMI_CONFIG_PASSPHRASE does not open the salt recorded in the state of project a"}},
		{name: "another secrets provider", config: "config: {}\n", states: map[string]string{"a": `{"type":"service"}`},
			wantErr: []string{`records a "service" secrets provider`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := session(t, false, nil, tt.config)
			for project, sp := range tt.states {
				writeState(t, s, project, sp, tt.secrets)
			}
			before, _ := os.ReadFile(s.ConfigPath)
			c, err := s.Crypter()
			after, _ := os.ReadFile(s.ConfigPath)
			if len(tt.wantErr) > 0 {
				if err == nil || !IsValidation(err) {
					t.Fatalf("error %v, want a validation error", err)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("the error lacks %q: %v", w, err)
					}
				}
				if string(after) != string(before) {
					t.Errorf("the stack config was changed:\n%s", after)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.wantSalt
			if want == "fresh" {
				if c.EncryptionSalt() == salt || c.EncryptionSalt() == other.EncryptionSalt() {
					t.Fatal("no fresh salt")
				}
				want = c.EncryptionSalt()
			}
			if c.EncryptionSalt() != want || !strings.HasPrefix(string(after), "encryptionsalt: "+want+"\n") {
				t.Fatalf("salt %q, file:\n%s", c.EncryptionSalt(), after)
			}
			if sp := s.SecretsProvider(); sp == nil || !strings.Contains(string(sp.State), want) {
				t.Fatalf("secrets provider %v", sp)
			}
		})
	}
}
