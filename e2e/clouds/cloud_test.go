package clouds

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/runnerhq/runner/e2e/fakecloud"
	"github.com/runnerhq/runner/internal/testenv"
)

// stringList returns v's strings when it is a list of strings.
func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := fakecloud.Unwrap(x).(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// unwrapString returns the plaintext of a (secret) string value.
func unwrapString(v any) string {
	s, _ := fakecloud.Unwrap(v).(string)
	return s
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// kubeObject returns the one Kubernetes object of the fake cloud of typ in
// namespace (named name, unless name is empty), failing the test unless
// there is exactly one.
func (e *env) kubeObject(typ, namespace, name string) fakecloud.Resource {
	e.t.Helper()
	var found []fakecloud.Resource
	for _, r := range e.ofType(typ) {
		meta, _ := r.Outputs["metadata"].(map[string]any)
		if meta["namespace"] == namespace && (name == "" || meta["name"] == name) {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		e.t.Fatalf("%d objects %s %s/%s in the fake cloud, want 1", len(found), typ, namespace, name)
	}
	return found[0]
}

// cloudTimes returns the modification time and size of every file of the
// fake cloud.
func (e *env) cloudTimes() map[string]string {
	e.t.Helper()
	out := map[string]string{}
	for p, data := range tree(e.t, e.cloud) {
		info, err := os.Stat(p)
		if err != nil {
			e.t.Fatal(err)
		}
		out[filepath.Base(p)] = fmt.Sprintf("%s %d bytes", info.ModTime().Format(time.RFC3339Nano), len(data))
	}
	return out
}

// kubeconfigFile is the part of a kubeconfig the tests read.
type kubeconfigFile struct {
	Clusters []struct {
		Name    string `yaml:"name"`
		Cluster struct {
			Server string `yaml:"server"`
			CA     string `yaml:"certificate-authority-data"`
		} `yaml:"cluster"`
	} `yaml:"clusters"`
	Users []struct {
		Name string `yaml:"name"`
		User struct {
			Exec *struct {
				Command string   `yaml:"command"`
				Args    []string `yaml:"args"`
				Env     []struct {
					Name  string `yaml:"name"`
					Value string `yaml:"value"`
				} `yaml:"env"`
			} `yaml:"exec"`
		} `yaml:"user"`
	} `yaml:"users"`
	Contexts []struct {
		Name    string `yaml:"name"`
		Context struct {
			Cluster string `yaml:"cluster"`
			User    string `yaml:"user"`
		} `yaml:"context"`
	} `yaml:"contexts"`
	CurrentContext string `yaml:"current-context"`
}

var hookLog = regexp.MustCompile(`^(?:Added new|Updated) context (\S+) in (.+); it is now the current context$`)

// checkKubeconfig checks the kubeconfig the eks hook wrote to $KUBECONFIG:
// mode 0600, the context the hook reported (current), its cluster the EKS
// endpoint, its user an exec entry running runner eks-token, which prints
// an EKS token; kubectl accepts it when it is installed.
func (e *env) checkKubeconfig(evs []event) {
	t := e.t
	t.Helper()
	var context, path string
	for _, ev := range evs {
		if m := hookLog.FindStringSubmatch(strings.TrimSpace(ev.Message)); ev.Type == "log" && ev.Project == "eks" && m != nil {
			context, path = m[1], m[2]
		}
	}
	if context == "" || path != e.kubeconfig {
		t.Fatalf("the eks hook reported no context added to %s (got %q in %q)", e.kubeconfig, context, path)
	}
	info, err := os.Stat(e.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("the kubeconfig's mode is %v, want 0600", info.Mode().Perm())
	}
	data, _ := os.ReadFile(e.kubeconfig)
	var k kubeconfigFile
	if err := yaml.Unmarshal(data, &k); err != nil {
		t.Fatalf("the kubeconfig is not YAML: %v\n%s", err, data)
	}
	if k.CurrentContext != context {
		t.Errorf("current-context %q, want %q", k.CurrentContext, context)
	}
	eks := e.stackOutputs("eks")
	i := -1
	for j, c := range k.Contexts {
		if c.Name == context {
			i = j
		}
	}
	if i < 0 {
		t.Fatalf("the kubeconfig has no context %s:\n%s", context, data)
	}
	ctx := k.Contexts[i].Context
	var server string
	for _, c := range k.Clusters {
		if c.Name == ctx.Cluster {
			server = c.Cluster.Server
			if c.Cluster.CA != eks["certificate_authority"] {
				t.Errorf("the cluster's certificate authority is not eks's")
			}
		}
	}
	if server == "" || server != eks["endpoint"] {
		t.Errorf("the context's cluster %s has server %q, want eks's endpoint %v", ctx.Cluster, server, eks["endpoint"])
	}
	var execCmd []string
	var execEnv []string
	for _, u := range k.Users {
		if u.Name == ctx.User && u.User.Exec != nil {
			execCmd = append([]string{u.User.Exec.Command}, u.User.Exec.Args...)
			for _, kv := range u.User.Exec.Env {
				execEnv = append(execEnv, kv.Name+"="+kv.Value)
			}
		}
	}
	if len(execCmd) < 2 || execCmd[0] != binary || execCmd[1] != "eks-token" || !slices.Contains(execCmd, eks["cluster_name"].(string)) {
		t.Fatalf("the context's user %s does not run %s eks-token for the cluster: %v", ctx.User, binary, execCmd)
	}
	cmd := exec.Command(execCmd[0], execCmd[1:]...)
	cmd.Env = append(append([]string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH")}, e.aws...), execEnv...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("the kubeconfig's exec command %v: %v\n%s", execCmd, err, errb.String())
	}
	var cred struct {
		Kind, APIVersion string
		Status           struct{ Token string }
	}
	if err := json.Unmarshal(out.Bytes(), &cred); err != nil || cred.Kind != "ExecCredential" || !strings.HasPrefix(cred.Status.Token, "k8s-aws-v1.") {
		t.Errorf("the exec command printed no ExecCredential with an EKS token (%v):\n%s", err, out.String())
	}
	if slices.Contains(execCmd, "--profile") {
		u, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(cred.Status.Token, "k8s-aws-v1."))
		if err != nil || !strings.Contains(string(u), "X-Amz-Credential="+maraProfileKey) {
			t.Errorf("the exec command %v did not sign with its profile's key %s: %s", execCmd, maraProfileKey, u)
		}
	}

	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		testenv.Unavailable(t, "kubectl is not on PATH, so the kubeconfig was checked only by parsing it (.ci/run installs it; locally: apt-get install kubernetes-client)")
	}
	view := exec.Command(kubectl, "config", "view", "-o", "jsonpath={.current-context}")
	view.Env = []string{"KUBECONFIG=" + e.kubeconfig, "HOME=" + e.home}
	got, err := view.Output()
	if err != nil || string(got) != context {
		t.Errorf("kubectl config view: %q, %v", got, err)
	}
}
