package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/runner/prompt"
	"github.com/runnerhq/runner/runner/term"
)

// scripted answers questions from a list; a bad answer is retried with the
// next one, as survey's validator does on a terminal.
type scripted struct {
	answers []string
	asked   []string
}

func (s *scripted) next(msg string, validate func(string) error) (string, error) {
	for len(s.answers) > 0 {
		a := s.answers[0]
		s.answers = s.answers[1:]
		s.asked = append(s.asked, msg)
		if validate == nil || validate(a) == nil {
			return a, nil
		}
	}
	return "", errors.New("the script ran out of answers")
}

func (s *scripted) Input(m, _, _ string, v func(string) error) (string, error) { return s.next(m, v) }
func (s *scripted) Password(m, _ string, v func(string) error) (string, error) { return s.next(m, v) }
func (s *scripted) Select(m string, _ []string, _, _ string) (string, error)   { return s.next(m, nil) }
func (s *scripted) Confirm(string, bool) (bool, error)                         { return true, nil }

func testProvider() *providers.Provider {
	return &providers.Provider{
		Name:     "t",
		Projects: []providers.Project{{Name: "a", Category: providers.Infrastructure}},
		Questions: []providers.Question{
			{Key: "t:name", Message: "Name", Validate: func(v string) error {
				if len(v) < 3 {
					return errors.New("must be 3 characters or more")
				}
				return nil
			}},
			{Key: "t:region", Message: "Region", Default: func(env func(string) string) string { return "eu-west-1" }},
			{Key: "t:password", Message: "Password", Secret: true},
			{Key: "t:optional", Message: "Optional", Optional: true},
		},
	}
}

// testIterations is the PBKDF2 iteration count of the tests' passphrase
// keys: a thousandth of the default, for speed.
const testIterations = 1000

// testProviders is a registry of testProvider only.
func testProviders(t *testing.T) *providers.Registry {
	t.Helper()
	r, err := providers.NewRegistry("t", testProvider())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func session(t *testing.T, interactive bool, asker prompt.Asker, configBody string) *Session {
	t.Helper()
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", "test")
	dir := t.TempDir()
	if configBody != "" {
		p := StackConfigPath(dir, "dev")
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(configBody), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	io := &term.IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, StdinTTY: interactive, StdoutTTY: interactive, NoColor: true}
	s, err := Open(Options{Root: dir, Stack: "dev", Provider: "t", IO: io, Asker: asker, Providers: testProviders(t), KeyIterations: testIterations})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestValidateNonInteractiveListsEveryMissingKey(t *testing.T) {
	s := session(t, false, nil, "")
	_, err := s.Validate(context.Background())
	var missing *prompt.MissingConfigError
	if !IsValidation(err) || !errors.As(err, &missing) {
		t.Fatalf("error %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"config set t:name <value>", "config set --secret t:password <value>"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "t:region") || strings.Contains(msg, "t:optional") {
		t.Errorf("a key with a default, or an optional one, is listed as missing:\n%s", msg)
	}
}

func TestValidateInteractiveAsksAgainOnABadAnswer(t *testing.T) {
	a := &scripted{answers: []string{"no", "good-name", "eu-north-1", "s3cret"}}
	s := session(t, true, a, "")
	rep, err := s.Validate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.asked) != 4 || !strings.Contains(a.asked[0], "t:name") || a.asked[0] != a.asked[1] {
		t.Fatalf("asked %v", a.asked)
	}
	if strings.Join(rep.Asked, ",") != "t:name,t:region,t:password" {
		t.Fatalf("report %+v", rep)
	}
	raw, err := os.ReadFile(s.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	if strings.Contains(text, "s3cret") || !strings.Contains(text, "secure: v1:") || !strings.Contains(text, "t:name: good-name") {
		t.Fatalf("saved config:\n%s", text)
	}
}

func TestValidateChecksPresentValues(t *testing.T) {
	body := "config:\n  t:name: ab\n  t:region: x\n  t:password: plain\n"
	s := session(t, false, nil, body)
	_, err := s.Validate(context.Background())
	if !IsValidation(err) || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "t:name") {
		t.Fatalf("error %v", err)
	}
	body = "config:\n  t:name: abc\n  t:region: x\n  t:password: plain\n  t.bad: 1\n"
	s = session(t, false, nil, body)
	rep, err := s.Validate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(rep.Warnings, "\n")
	if !strings.Contains(joined, "line 4: t:password is a secret but is stored in plain text") || !strings.Contains(joined, "line 5: t.bad") {
		t.Fatalf("warnings:\n%s", joined)
	}
}

func TestValidateNonInteractiveFillsDefaults(t *testing.T) {
	s := session(t, false, nil, "config:\n  t:name: abc\n  t:password:\n    secure: x\n")
	// The secure value is not ciphertext of this stack: validation must say so.
	if _, err := s.Validate(context.Background()); err == nil {
		t.Fatal("a secure value that does not decrypt was accepted")
	}
	s = session(t, false, nil, "config:\n  t:name: abc\n")
	if err := s.SetConfig(context.Background(), "t:password", "pw", true, false); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Validate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Defaulted, ",") != "t:region" {
		t.Fatalf("defaulted %v", rep.Defaulted)
	}
	if v, _, _ := s.Config.String(context.Background(), "t:region", nil); v != "eu-west-1" {
		t.Fatalf("t:region = %q", v)
	}
}

func TestWrongPassphraseIsAValidationError(t *testing.T) {
	s := session(t, false, nil, "")
	if _, err := s.Crypter(); err != nil { // writes the new stack's encryptionsalt
		t.Fatal(err)
	}
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", "other")
	s2, err := Open(Options{Root: s.Workspace, Stack: "dev", Provider: "t", IO: s.Opts.IO, Providers: s.Opts.Providers, KeyIterations: testIterations})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s2.Crypter()
	if !IsValidation(err) || !strings.Contains(err.Error(), "incorrect passphrase") {
		t.Fatalf("error %v", err)
	}
}
