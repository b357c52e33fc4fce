package runner

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/runner/term"
)

// openWithoutStack opens an empty workspace with no stack selected.
func openWithoutStack(t *testing.T, interactive bool, a *scripted, create bool) (string, *Session, error) {
	t.Helper()
	t.Setenv("PULUMI_STACK", "")
	dir := t.TempDir()
	io := &term.IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, StdinTTY: interactive, StdoutTTY: interactive, NoColor: true}
	opts := Options{Root: dir, Provider: "t", IO: io, Providers: testProviders(t), KeyIterations: testIterations}
	if a != nil {
		opts.Asker = a
	}
	open := OpenExisting
	if create {
		open = Open
	}
	s, err := open(opts)
	return dir, s, err
}

func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	return files
}

func TestNoStackSelectedListsWhatANewStackNeeds(t *testing.T) {
	dir, _, err := openWithoutStack(t, false, nil, true)
	var nse *NoStackSelectedError
	if !errors.As(err, &nse) || !IsValidation(err) {
		t.Fatalf("open without a stack and a terminal: %v, want a *NoStackSelectedError (validation)", err)
	}
	for _, want := range []string{"no stack selected", "runner --stack <NAME> config set t:name <value>", "runner --stack <NAME> config set --secret t:password <value>"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
	if f := filesIn(t, dir); len(f) > 0 {
		t.Errorf("listing what a new stack needs wrote %v", f)
	}
}

func TestNoStackSelectedIsAValidationErrorForEveryCommand(t *testing.T) {
	_, _, err := openWithoutStack(t, false, nil, false)
	if !IsValidation(err) || !strings.Contains(err.Error(), "no stack selected") {
		t.Fatalf("got %v, want a validation error saying no stack is selected", err)
	}
}

func TestNoStackSelectedAsksForTheName(t *testing.T) {
	a := &scripted{answers: []string{"bad name!", "staging"}}
	dir, s, err := openWithoutStack(t, true, a, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.StackName != "staging" {
		t.Errorf("stack %q, want staging", s.StackName)
	}
	if len(a.asked) != 2 || !strings.HasPrefix(a.asked[0], "Stack name") {
		t.Errorf("asked %q, want the stack name twice (once after a bad answer)", a.asked)
	}
	envPath := filepath.Join(dir, ConfigDir, "environment")
	if _, err := os.Stat(envPath); !os.IsNotExist(err) {
		t.Errorf("opening wrote the environment file (%v); only RecordStack may", err)
	}
	if err := s.RecordStack(); err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(envPath)
	if err != nil || !strings.Contains(string(env), "PULUMI_STACK=staging") {
		t.Errorf("the environment file does not record the stack: %q, %v", env, err)
	}
}
