package eks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
)

// CommandName is the name a kubeconfig's exec entry uses for runner when
// PATH finds the running binary under it.
const CommandName = "runner"

// ExecCommand returns the command a kubeconfig's exec entry runs for
// tokens, for the running binary executable: "runner" when the PATH of
// path (the user's shell's, which kubectl sees too) resolves that name to
// executable, so that a rebuilt or reinstalled runner keeps working; else
// executable's absolute path. A binary built by `go run` in a temporary
// folder is refused: it is deleted when the run ends, and every kubectl
// call would then fail.
func ExecCommand(executable, path string) (string, error) {
	if executable == "" {
		return "", fmt.Errorf("runner does not know its own executable, which the kubeconfig's exec entry runs for tokens")
	}
	if TemporaryBuild(executable) {
		return "", fmt.Errorf("runner runs from %s, a temporary build of `go run` that is deleted when it exits, and the EKS kubeconfig's exec entry must name a runner that lasts: build it (`go build -o runner ./cmd/runner`) or install it (`go install ./cmd/runner`) and run that", executable)
	}
	abs, err := filepath.Abs(executable)
	if err != nil {
		return "", fmt.Errorf("the path of runner's executable %s: %w", executable, err)
	}
	if found, err := lookPath(CommandName, path); err == nil && sameFile(found, abs) {
		return CommandName, nil
	}
	return abs, nil
}

// TemporaryBuild reports whether executable is a binary that `go run`
// built: <tmp>/go-build<N>/b<N>/exe/<name>.
func TemporaryBuild(executable string) bool {
	exe := filepath.Dir(filepath.Clean(executable))
	pkg := filepath.Dir(exe)
	return filepath.Base(exe) == "exe" && goRunPackage.MatchString(filepath.Base(pkg)) &&
		goRunFolder.MatchString(filepath.Base(filepath.Dir(pkg)))
}

var (
	goRunPackage = regexp.MustCompile(`^b[0-9]+$`)
	goRunFolder  = regexp.MustCompile(`^go-build[0-9]+$`)
)

// lookPath finds name in the folders of the PATH list path, as the shell
// does.
func lookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative folder depends on where kubectl runs
		}
		p := filepath.Join(dir, name)
		if f, err := exec.LookPath(p); err == nil {
			return f, nil
		}
	}
	return "", exec.ErrNotFound
}

// sameFile reports whether a and b are the same file (links followed).
func sameFile(a, b string) bool {
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	return err == nil && os.SameFile(ia, ib)
}
