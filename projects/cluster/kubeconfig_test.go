package cluster

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
	"gopkg.in/yaml.v3"
)

const twoContexts = `apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://dev.example.com
    certificate-authority: certs/dev-ca.crt
- name: prod-cluster
  cluster:
    server: https://prod.example.com
    certificate-authority-data: UFJPRA==
contexts:
- name: dev
  context:
    cluster: dev-cluster
    user: dev-user
- name: prod
  context:
    cluster: prod-cluster
    user: prod-user
users:
- name: dev-user
  user:
    token: dev-token
- name: prod-user
  user:
    client-key: keys/prod.key
    exec:
      command: ./bin/token-helper
      apiVersion: client.authentication.k8s.io/v1beta1
`

func TestParseKubeconfig(t *testing.T) {
	tests := []struct {
		name, data string
		err        string
	}{
		{"two contexts", twoContexts, ""},
		{"not YAML", "clusters: [\n  - a: b\n", "/k/config is not a kubeconfig file: yaml: line"},
		{"a list", "- a\n- b\n", "/k/config is not a kubeconfig file: line 1: a kubeconfig is a YAML mapping"},
		{"another kind", "kind: Pod\ncontexts: []\n", "/k/config is not a kubeconfig file: line 1: its kind is \"Pod\", not Config"},
		{"no contexts", "apiVersion: v1\nkind: Config\nclusters: []\n", "line 1: it has no contexts"},
		{"a context without a name", "kind: Config\nclusters:\n- name: a\ncontexts:\n- context: {cluster: a}\n", "line 5: a context has no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := ParseKubeconfig("/k/config", []byte(tt.data))
			if wantErr(t, err, tt.err) {
				return
			}
			if got := k.ContextNames(); !slices.Equal(got, []string{"dev", "prod"}) || k.CurrentContext() != "dev" {
				t.Errorf("contexts %q", got)
			}
			if c := k.Contexts()[1]; c.Cluster != "prod-cluster" || c.User != "prod-user" || c.Line != 18 {
				t.Errorf("context prod = %+v", c)
			}
		})
	}
}

// TestDanglingContexts: a context naming a cluster or user the file does
// not define spoils only itself, as with kubectl: the file parses, its
// other contexts are usable, and Usable refuses that one naming its line.
func TestDanglingContexts(t *testing.T) {
	tests := []struct{ name, data, err string }{
		{"a missing cluster", "kind: Config\nclusters:\n- name: a\n  cluster: {server: https://a}\ncontexts:\n- name: x\n  context:\n    cluster: b\n- name: ok\n  context: {cluster: a}\n",
			"line 6: the context x names the cluster \"b\", which the file does not define"},
		{"a missing user", "kind: Config\nclusters:\n- name: a\n  cluster: {server: https://a}\ncontexts:\n- name: x\n  context: {cluster: a, user: u}\n- name: ok\n  context: {cluster: a}\n",
			"line 6: the context x names the user \"u\", which the file does not define"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := ParseKubeconfig("/k/config", []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := k.Usable("ok"); err != nil {
				t.Errorf("the sound context: %v", err)
			}
			if _, err := k.Usable("x"); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("the dangling context: %v, want %q", err, tt.err)
			}
		})
	}
}

func TestReadKubeconfigOfAMissingFile(t *testing.T) {
	_, err := ReadKubeconfig(filepath.Join(t.TempDir(), "nope"))
	if err == nil || !strings.Contains(err.Error(), "does not exist; give the path of your cluster's kubeconfig in kubernetes:kubeconfig") {
		t.Fatalf("error %v", err)
	}
}

func TestMinifyKeepsOneContext(t *testing.T) {
	k, err := ParseKubeconfig("/home/u/.kube/config", []byte(twoContexts))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Context("staging"); err == nil || !strings.Contains(err.Error(), `has no context "staging"; its contexts are: dev, prod`) {
		t.Errorf("missing context: %v", err)
	}
	out, err := k.Minify("prod")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "dev") {
		t.Errorf("the kubeconfig of prod holds the dev context's parts:\n%s", out)
	}
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["current-context"] != "prod" || len(doc["clusters"].([]any)) != 1 || len(doc["users"].([]any)) != 1 {
		t.Errorf("minified:\n%s", out)
	}
	user := dig(doc["users"].([]any)[0], "user")
	if dig(user, "client-key") != "/home/u/.kube/keys/prod.key" || dig(user, "exec", "command") != "/home/u/.kube/bin/token-helper" {
		t.Errorf("relative paths not made absolute: %v", user)
	}
	dev, _ := k.Minify("dev")
	if !strings.Contains(dev, "certificate-authority: /home/u/.kube/certs/dev-ca.crt") {
		t.Errorf("dev's CA path not made absolute:\n%s", dev)
	}
}

func TestDefaultKubeconfigPath(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/u"}, "/home/u/.kube/config"},
		{map[string]string{"HOME": "/home/u", "KUBECONFIG": "/a/one" + string(filepath.ListSeparator) + "/b/two"}, "/a/one"},
		{map[string]string{"HOME": "/home/u", "KUBECONFIG": "~/kc"}, "/home/u/kc"},
		{map[string]string{}, ""},
	}
	for _, tt := range tests {
		if got := DefaultKubeconfigPath(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("DefaultKubeconfigPath(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

func TestFromFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(twoContexts), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		cfg     map[string]any
		cluster string
		err     string
	}{
		{"the context's cluster", map[string]any{KubeconfigPathKey: path, ContextKey: "prod"}, "prod-cluster", ""},
		{"a cluster name of its own", map[string]any{KubeconfigPathKey: path, ContextKey: "dev", ClusterNameKey: "mine"}, "mine", ""},
		{"a missing context", map[string]any{KubeconfigPathKey: path, ContextKey: "qa"}, "", `has no context "qa"; its contexts are: dev, prod`},
		{"no context", map[string]any{KubeconfigPathKey: path}, "", "kubernetes:context_name is not set"},
		{"no path", map[string]any{ContextKey: "dev"}, "", "kubernetes:kubeconfig is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := run(t, FromFile(), tt.cfg)
			if wantErr(t, err, tt.err) {
				return
			}
			kc, ok := r.outputs[KubeconfigOutput].(resource.Secret)
			if !ok || !strings.Contains(kc.Element.(string), "current-context: "+tt.cfg[ContextKey].(string)) {
				t.Errorf("kubeconfig output %#v is not the secret kubeconfig of the context", r.outputs[KubeconfigOutput])
			}
			if r.outputs[ClusterNameOutput] != tt.cluster || len(r.order) != 0 {
				t.Errorf("cluster_name %v, resources %v", r.outputs[ClusterNameOutput], r.order)
			}
		})
	}
}
