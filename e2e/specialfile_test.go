package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputOntoASpecialFileIsRefused: `preview --out` and `stack export
// --file` onto an existing named pipe (as onto /dev/full or /dev/null) exit
// non-zero (2 and 1, as their other file errors) and leave it as it is,
// instead of replacing it with a regular file.
func TestOutputOntoASpecialFileIsRefused(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-s", "dev", "--non-interactive", "preview", "--out"}, 2},
		{[]string{"-s", "dev", "stack", "export", "--project", "ca", "--file"}, 1},
	} {
		args := tc.args
		pipe := filepath.Join(dir, "pipe")
		os.Remove(pipe)
		if err := syscall.Mkfifo(pipe, 0o600); err != nil {
			t.Fatal(err)
		}
		r := run(t, dir, "", nil, append(args, pipe)...)
		if r.Code != tc.code || !strings.Contains(r.Stderr, "not a regular file") {
			t.Errorf("runner %s %s: exit %d, want %d saying it is not a regular file\n%s", strings.Join(args, " "), pipe, r.Code, tc.code, r.Stderr)
		}
		if st, err := os.Lstat(pipe); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("runner %s %s replaced the named pipe: %v %v", strings.Join(args, " "), pipe, st.Mode(), err)
		}
	}
}
