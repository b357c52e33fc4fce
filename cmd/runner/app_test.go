package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/term"
)

func TestExitCodeTable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, exitOK},
		{"plain", errors.New("boom"), exitFailed},
		{"usage", runner.Usage(errors.New("bad flag")), exitUsage},
		{"wrapped usage", fmt.Errorf("show: %w", runner.Usage(errors.New("x"))), exitUsage},
		{"validation", runner.Invalid(errors.New("missing")), exitValidation},
		{"cancelled", fmt.Errorf("up: %w", context.Canceled), exitCancelled},
		{"silent keeps its code", silentError{runner.Invalid(errors.New("shown"))}, exitValidation},
		{"locked", &backend.LockedError{Project: "app", Stack: "dev"}, exitLocked},
		{"wrapped locked", fmt.Errorf("up app: locking stack dev: %w", &backend.LockedError{}), exitLocked},
		{"silent locked", silentError{fmt.Errorf("up: %w", &backend.LockedError{})}, exitLocked},
		{"reported failure", &runner.ReportedError{Err: fmt.Errorf("up: a failed: %w", errors.New("x"))}, exitFailed},
		{"missing provider config", &runner.ReportedError{Err: fmt.Errorf("up: a failed: %w",
			&resource.MissingConfigError{Package: "aws", Keys: []resource.MissingKey{{Key: "region"}}})}, exitValidation},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
	}
}

// runTest runs the CLI in process with buffers for streams.
func runTest(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	io := &term.IO{In: strings.NewReader(""), Out: &out, Err: &errb, NoColor: true}
	code = run(context.Background(), io, append([]string{"runner"}, args...), fastKeys)
	return out.String(), errb.String(), code
}

// fastKeys makes the app derive passphrase keys with a thousandth of the
// default PBKDF2 iterations, for speed.
func fastKeys(app *cli.App) {
	if app.Metadata == nil {
		app.Metadata = map[string]any{}
	}
	app.Metadata[keyIterationsKey] = 1000
}

func TestCommands(t *testing.T) {
	tests := []struct {
		args       []string
		code       int
		out, err   string
		jsonOutput bool
	}{
		{args: []string{"providers"}, out: "local (default)"},
		{args: []string{"--json", "providers"}, out: `"name": "aws"`, jsonOutput: true},
		{args: []string{"show"}, out: "Execution order of provider local"},
		{args: []string{"-p", "aws", "show", "--format", "mermaid"}, out: "eks --> kubeconfig"},
		{args: []string{"--json", "show"}, out: `"steps"`, jsonOutput: true},
		{args: []string{"version"}, out: "runner dev (commit unknown, go"},
		{args: []string{"--json", "version"}, out: `"go":"go`, jsonOutput: true},
		{args: []string{"show", "--format", "svg"}, code: exitUsage, err: `unknown format "svg"`},
		{args: []string{"-p", "gcp", "show"}, code: exitUsage, err: `there is no provider "gcp"; the providers are: aws, do, kubeconfig, linode, local`},
		{args: []string{"--json", "show", "--format", "svg"}, code: exitUsage, out: `"type":"error"`, jsonOutput: true},
		{args: []string{"nope"}, code: exitUsage, err: `unknown command "nope"`},
		{args: []string{"show", "extra"}, code: exitUsage, err: "too many arguments"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := runTest(tt.args...)
			if code != tt.code || !strings.Contains(out, tt.out) || !strings.Contains(errOut, tt.err) {
				t.Fatalf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			if tt.jsonOutput {
				dec := json.NewDecoder(strings.NewReader(out))
				for dec.More() {
					var v any
					if err := dec.Decode(&v); err != nil {
						t.Fatalf("stdout is not JSON: %v\n%s", err, out)
					}
				}
			}
		})
	}
}

// closedStdout fails every write, as a closed stdout does.
type closedStdout struct{}

func (closedStdout) Write([]byte) (int, error) { return 0, os.ErrClosed }

// A command whose stdout is closed fails, and says why on stderr, with or
// without --json.
func TestClosedStdoutIsAnError(t *testing.T) {
	for _, args := range [][]string{{"providers"}, {"providers", "--json"}, {"version", "--json"}} {
		var errb bytes.Buffer
		io := &term.IO{In: strings.NewReader(""), Out: closedStdout{}, Err: &errb, NoColor: true}
		code := run(context.Background(), io, append([]string{"runner"}, args...))
		if code != exitFailed || !strings.Contains(errb.String(), "error: ") || !strings.Contains(errb.String(), "file already closed") {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and the write error on stderr", args, code, errb.String())
		}
	}
}
