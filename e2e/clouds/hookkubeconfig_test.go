package clouds

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// stagingKubeconfig is a user's own kubeconfig: one context, current.
const stagingKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: staging
  cluster:
    server: https://staging.example.com
users:
- name: staging
  user:
    token: staging-token
contexts:
- name: staging
  context:
    cluster: staging
    user: staging
current-context: staging
`

// currentContext reads the current-context of the kubeconfig at path.
func currentContext(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var k kubeconfigFile
	if err := yaml.Unmarshal(data, &k); err != nil {
		t.Fatalf("%s is not YAML: %v", path, err)
	}
	return k.CurrentContext
}

// TestDOHookWritesTheFileHoldingTheContext: with KUBECONFIG naming two
// files, the domk8s hook merges into the one that holds the DOKS context
// (as kubectl writes an entry where it is), not always the first; an
// unchanged cluster leaves both files, and the user's current context, as
// they are, as MARA's do hook did. Before, runner added the context to the
// first file again and made it current there.
func TestDOHookWritesTheFileHoldingTheContext(t *testing.T) {
	e := doWorkspace(t, true)
	e.ok("-p", "do", "up", "--yes")
	first := filepath.Join(filepath.Dir(e.kubeconfig), "first")
	if err := os.WriteFile(first, []byte(stagingKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(e.kubeconfig)
	e.extra = append(e.extra, "KUBECONFIG="+first+string(os.PathListSeparator)+e.kubeconfig)
	r := e.ok("-p", "do", "up", "--yes")
	if !strings.Contains(r.Stdout+r.Stderr, "Context do-sfo3-mara-dev in "+e.kubeconfig+" is up to date; the current context was left as it is") {
		t.Errorf("the hook does not say the context in the second file is up to date:\n%s", r)
	}
	if data, _ := os.ReadFile(first); string(data) != stagingKubeconfig {
		t.Errorf("the first kubeconfig, which does not hold the DOKS context, was changed:\n%s", data)
	}
	if data, _ := os.ReadFile(e.kubeconfig); string(data) != string(second) {
		t.Errorf("the kubeconfig holding the unchanged DOKS context was rewritten:\n%s", data)
	}
}

// TestLinodeHookMakesTheContextCurrent: the lke hook makes the LKE context
// current on every up, as MARA's update_kubeconfig did, even when its
// entries are as they were; before, a user's other current context stayed.
// It sets it where kubectl reads it: in the first file of KUBECONFIG that
// sets a current context.
func TestLinodeHookMakesTheContextCurrent(t *testing.T) {
	e := linodeWorkspace(t, true)
	e.ok("-p", "linode", "up", "--yes")
	lke := currentContext(t, e.kubeconfig)
	if !regexp.MustCompile(`^lke\d+-ctx$`).MatchString(lke) {
		t.Fatalf("the current context after up is %q, want lke<id>-ctx", lke)
	}
	data, _ := os.ReadFile(e.kubeconfig)
	data = []byte(strings.Replace(string(data), "current-context: "+lke, "current-context: staging", 1))
	if err := os.WriteFile(e.kubeconfig, data, 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.ok("-p", "linode", "up", "--yes")
	if got := currentContext(t, e.kubeconfig); got != lke {
		t.Errorf("the current context after the second up is %q, want %s", got, lke)
	}
	if !strings.Contains(r.Stdout+r.Stderr, "Context "+lke+" in "+e.kubeconfig+" is up to date; it is now the current context again") {
		t.Errorf("the hook does not say it made the context current again:\n%s", r)
	}
	// A file before it in KUBECONFIG sets another current context, which
	// kubectl reads first: the hook sets it there, keeping that file's
	// own entries, and adds nothing else to it.
	first := filepath.Join(filepath.Dir(e.kubeconfig), "first")
	if err := os.WriteFile(first, []byte(stagingKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	e.extra = append(e.extra, "KUBECONFIG="+first+string(os.PathListSeparator)+e.kubeconfig)
	r = e.ok("-p", "linode", "up", "--yes")
	data, _ = os.ReadFile(first)
	var k kubeconfigFile
	if err := yaml.Unmarshal(data, &k); err != nil {
		t.Fatalf("the first kubeconfig is not YAML: %v\n%s", err, data)
	}
	if k.CurrentContext != lke || len(k.Contexts) != 1 || k.Contexts[0].Name != "staging" || len(k.Clusters) != 1 || k.Clusters[0].Name != "staging" {
		t.Errorf("the first kubeconfig is not its own with %s current:\n%s\n%s", lke, data, r)
	}
}
