package clouds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// kubeconfigDoc is the part of a kubeconfig the eks hook tests read.
type kubeconfigDoc struct {
	CurrentContext string `yaml:"current-context"`
	Users          []struct {
		Name string `yaml:"name"`
		User struct {
			Exec *struct {
				Command string `yaml:"command"`
			} `yaml:"exec"`
		} `yaml:"user"`
	} `yaml:"users"`
}

// readKubeconfig parses the kubeconfig the eks hook writes.
func (e *env) readKubeconfig() (kubeconfigDoc, []byte) {
	e.t.Helper()
	data, err := os.ReadFile(e.kubeconfig)
	if err != nil {
		e.t.Fatal(err)
	}
	var k kubeconfigDoc
	if err := yaml.Unmarshal(data, &k); err != nil {
		e.t.Fatalf("the kubeconfig: %v\n%s", err, data)
	}
	return k, data
}

// execCommand is the command of the exec entry of the kubeconfig's user
// name.
func (k kubeconfigDoc) execCommand(name string) string {
	for _, u := range k.Users {
		if u.Name == name && u.User.Exec != nil {
			return u.User.Exec.Command
		}
	}
	return ""
}

// TestEKSHookKubeconfigCommandAndCurrentContext: up -p aws took over the
// user's kubeconfig on every run, even a no-op one (current-context set to
// the EKS cluster), and its exec entry held the path of the binary that
// ran, after `go run` a temporary file deleted on exit. Now a `go run`
// build is refused before the kubeconfig is written; the exec entry runs
// `runner` when PATH finds the running binary under that name, else its
// absolute path; and the context becomes current only when the cluster's
// entries are added or change, which the log says.
func TestEKSHookKubeconfigCommandAndCurrentContext(t *testing.T) {
	e := maraWorkspace(t)
	tmp := filepath.Dir(e.dir)

	goRun := filepath.Join(tmp, "go-build3141", "b001", "exe", "runner")
	copyFile(t, binary, goRun)
	e.binary = goRun
	r := e.run("-p", "aws", "up", "--yes")
	if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "a temporary build of `go run`") {
		t.Fatalf("up from a `go run` build was not refused: %s", r)
	}
	if _, err := os.Stat(e.kubeconfig); !os.IsNotExist(err) {
		t.Errorf("up from a `go run` build wrote the kubeconfig (%v)", err)
	}

	e.binary = ""
	links := filepath.Join(tmp, "links")
	if err := os.MkdirAll(links, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(binary, filepath.Join(links, "runner")); err != nil {
		t.Fatal(err)
	}
	onPath := e.path
	e.path = links + string(os.PathListSeparator) + onPath
	r = e.ok("-p", "aws", "up", "--yes")
	arn := e.stackOutputs("eks")["cluster_arn"].(string)
	k, _ := e.readKubeconfig()
	if got := k.execCommand(arn); got != "runner" || k.CurrentContext != arn {
		t.Fatalf("with runner on PATH, the exec entry runs %q (want runner), current context %q (want %s)", got, k.CurrentContext, arn)
	}
	if !strings.Contains(r.Stdout, "Added new context "+arn+" in "+e.kubeconfig) || !strings.Contains(r.Stdout, "it is now the current context") {
		t.Errorf("up does not say it added the context and made it current:\n%s", r.Stdout)
	}

	// The user switches to another context; a run that changes nothing
	// leaves the file, and that choice, alone.
	_, data := e.readKubeconfig()
	chosen := strings.Replace(string(data), "current-context: "+arn, "current-context: other", 1)
	if err := os.WriteFile(e.kubeconfig, []byte(chosen), 0o600); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(e.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	r = e.ok("-p", "aws", "up", "--yes")
	after, err := os.Stat(e.kubeconfig)
	if _, now := e.readKubeconfig(); err != nil || string(now) != chosen || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("a no-op up rewrote the kubeconfig:\n%s", now)
	}
	if !strings.Contains(r.Stdout, "is up to date; the current context was left as it is") {
		t.Errorf("a no-op up does not say it left the kubeconfig alone:\n%s", r.Stdout)
	}

	// Off PATH, the exec entry names the binary; the entry changed, so the
	// context is current again.
	e.path = onPath
	r = e.ok("-p", "aws", "up", "--yes")
	k, _ = e.readKubeconfig()
	if got := k.execCommand(arn); got != binary || k.CurrentContext != arn {
		t.Errorf("off PATH, the exec entry runs %q (want %s), current context %q (want %s)", got, binary, k.CurrentContext, arn)
	}
	if !strings.Contains(r.Stdout, "Updated context "+arn) {
		t.Errorf("up does not say it updated the context:\n%s", r.Stdout)
	}
}

// copyFile copies the executable src to dst, making dst's folder.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
}
