package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// ReadOnly makes the file or folder at path unwritable for this process
// until the test ends, also as root (who ignores permission bits): as root
// it sets the immutable attribute (chattr +i, which ext4, xfs and btrfs
// honour), else it clears the write bits. It ends tb with Unavailable when
// neither takes effect here (a file system without the attribute).
func ReadOnly(tb testing.TB, path string) {
	tb.Helper()
	st, err := os.Stat(path)
	if err != nil {
		tb.Fatalf("making %s read-only: %v", path, err)
	}
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
			Unavailable(tb, fmt.Sprintf("as root a read-only file needs the immutable attribute, and chattr +i %s failed: %v %s",
				path, err, strings.TrimSpace(string(out))))
		}
		tb.Cleanup(func() {
			if out, err := exec.Command("chattr", "-i", path).CombinedOutput(); err != nil {
				tb.Errorf("chattr -i %s: %v %s", path, err, out)
			}
		})
	} else {
		if err := os.Chmod(path, st.Mode().Perm()&^0o222); err != nil {
			tb.Fatalf("making %s read-only: %v", path, err)
		}
		tb.Cleanup(func() { os.Chmod(path, st.Mode().Perm()) })
	}
	if syscall.Access(path, 2 /* W_OK */) == nil {
		Unavailable(tb, "this system lets the test write "+path+" after making it read-only")
	}
}
