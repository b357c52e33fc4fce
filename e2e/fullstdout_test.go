package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/internal/testenv"
)

// A command whose stdout cannot be written (here /dev/full: every write
// fails) exits 1 and says why on stderr, for listings and for the event
// stream alike, with and without --json: its output is incomplete, and a
// script must not take it for a success.
func TestStdoutThatCannotBeWrittenIsAnError(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		testenv.Unavailable(t, fmt.Sprintf("no /dev/full here: %v", err))
	}
	defer full.Close()
	dir := workspace(t)
	wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "set", "--secret", "app:adminPassword", "password-e2e")
	for _, args := range [][]string{
		{"providers"},
		{"--json", "providers"},
		{"-s", "dev", "--json", "config", "ls"},
		{"-s", "dev", "--non-interactive", "preview"},
		{"-s", "dev", "--non-interactive", "--json", "preview"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, binary, append([]string{"--root", dir}, args...)...)
		cmd.Dir, cmd.Env, cmd.Stdout = dir, baseEnv(), full
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		cancel()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(errb.String(), "no space left on device") {
			t.Errorf("runner %s with stdout on /dev/full: %v, stderr:\n%s\nwant exit 1 naming the write error", strings.Join(args, " "), err, errb.String())
		}
	}
}
