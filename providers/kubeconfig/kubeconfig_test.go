package kubeconfig

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runnerhq/runner/providers"
)

const file = `apiVersion: v1
kind: Config
current-context: kind-dev
clusters:
- name: kind-dev
  cluster: {server: "https://127.0.0.1:6443"}
- name: prod
  cluster: {server: "https://prod.example.com"}
users:
- name: u
  user: {token: t}
contexts:
- name: kind-dev
  context: {cluster: kind-dev, user: u}
- name: prod-admin
  context: {cluster: prod, user: u}
`

func write(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func getter(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func TestValidate(t *testing.T) {
	good := write(t, "config", file)
	notKube := write(t, "notes", "hello: [1, 2\n")
	pod := write(t, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n")
	// The kubernetes plugin refused it only once the kubeconfig project
	// had run (exit 3 after a change); the other context stays usable.
	noServer := write(t, "noserver", strings.Replace(file, `cluster: {server: "https://prod.example.com"}`, `cluster: {insecure-skip-tls-verify: true}`, 1))
	tests := []struct {
		name string
		cfg  map[string]string
		err  []string
	}{
		{"a context of the file", map[string]string{"kubernetes:kubeconfig": good, "kubernetes:context_name": "prod-admin"}, nil},
		{"a missing file", map[string]string{"kubernetes:kubeconfig": good + ".nope", "kubernetes:context_name": "x"},
			[]string{good + ".nope does not exist"}},
		{"not YAML", map[string]string{"kubernetes:kubeconfig": notKube}, []string{notKube + " is not a kubeconfig file", "line"}},
		{"another kind", map[string]string{"kubernetes:kubeconfig": pod}, []string{pod + " is not a kubeconfig file: line 2: its kind is \"Pod\""}},
		{"a missing context", map[string]string{"kubernetes:kubeconfig": good, "kubernetes:context_name": "staging"},
			[]string{`the kubeconfig file ` + good + ` has no context "staging"; its contexts are: kind-dev, prod-admin`}},
		{"a cluster without a server", map[string]string{"kubernetes:kubeconfig": noServer, "kubernetes:context_name": "prod-admin"},
			[]string{"the kubeconfig file " + noServer + ": line 15: the context prod-admin names the cluster prod, which has no server"}},
		{"another context of that file", map[string]string{"kubernetes:kubeconfig": noServer, "kubernetes:context_name": "kind-dev"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validateAll(New(), getter(tt.cfg))
			if len(tt.err) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.err {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// validateAll checks cfg as runner's validation does: each question's
// value on its own and against the others, then the provider's check of
// the whole.
func validateAll(p *providers.Provider, get func(string) (string, bool)) error {
	var errs []error
	for _, q := range p.Questions {
		v, ok := get(q.Key)
		if !ok {
			continue
		}
		if q.Validate != nil {
			errs = append(errs, q.Validate(v))
		}
		if q.Agrees != nil {
			errs = append(errs, q.Agrees(v, get))
		}
	}
	return errors.Join(append(errs, p.Validate(get))...)
}

func TestQuestions(t *testing.T) {
	good := write(t, "config", file)
	qs := map[string]int{}
	p := New()
	for i, q := range p.Questions {
		if _, dup := qs[q.Key]; dup {
			t.Errorf("question %s twice", q.Key)
		}
		qs[q.Key] = i
	}
	for _, k := range []string{"kubernetes:kubeconfig", "kubernetes:context_name", "kubernetes:cluster_name", "kic-helm:fqdn", "prometheus:adminpass"} {
		if _, ok := qs[k]; !ok {
			t.Errorf("%s is not asked", k)
		}
	}
	if !(qs["kubernetes:kubeconfig"] < qs["kubernetes:context_name"] && qs["kubernetes:context_name"] < qs["kubernetes:cluster_name"]) {
		t.Error("the path, the context and the cluster are not asked in that order")
	}
	path := p.Questions[qs["kubernetes:kubeconfig"]]
	env := map[string]string{"HOME": "/home/u", "KUBECONFIG": "/etc/kube/a" + string(filepath.ListSeparator) + "/etc/kube/b"}
	if d := path.Default(func(k string) string { return env[k] }); d != "/etc/kube/a" {
		t.Errorf("default path %q, want $KUBECONFIG's first", d)
	}
	if err := path.Validate(good + ".nope"); err == nil || !strings.Contains(err.Error(), "must name a kubeconfig file") {
		t.Errorf("a missing file: %v", err)
	}
	get := getter(map[string]string{"kubernetes:kubeconfig": good, "kubernetes:context_name": "prod-admin"})
	ctxQ := p.Questions[qs["kubernetes:context_name"]]
	if got := ctxQ.ChoicesFrom(get); !slices.Equal(got, []string{"kind-dev", "prod-admin"}) {
		t.Errorf("context choices %q", got)
	}
	if got := ctxQ.DefaultFrom(get); got != "kind-dev" {
		t.Errorf("default context %q, want the file's current-context", got)
	}
	if err := ctxQ.Agrees("nope", get); err == nil || !strings.Contains(err.Error(), "its contexts are: kind-dev, prod-admin") {
		t.Errorf("a context not in the file agrees: %v", err)
	}
	if got := ctxQ.ChoicesFrom(getter(nil)); got != nil {
		t.Errorf("choices without a file %q", got)
	}
	if got := p.Questions[qs["kubernetes:cluster_name"]].DefaultFrom(get); got != "prod" {
		t.Errorf("default cluster name %q, want the context's cluster", got)
	}
	fqdn := p.Questions[qs["kic-helm:fqdn"]]
	if !fqdn.Optional || fqdn.Validate("demo.example.com") != nil || fqdn.Validate("http://x") == nil {
		t.Error("kic-helm:fqdn is not an optional DNS name")
	}
}

func TestDeployableWithTheKubernetesPlugin(t *testing.T) {
	p := New()
	if len(p.Plugins) != 1 || p.Plugins[0].Name != "kubernetes" || p.Plugins[0].Version != "4.34.2" {
		t.Errorf("provider %+v", p)
	}
	if p.Projects[0].Name != "kubeconfig" || p.Projects[0].Program == nil {
		t.Errorf("first project %+v", p.Projects[0])
	}
}
