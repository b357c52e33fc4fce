package builtin

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugins"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
	"github.com/runnerhq/runner/providers"
)

// edgeMismatches compares the dependencies project declares with the
// projects its program read by stack reference, and says what differs.
func edgeMismatches(project string, declared, read []string) []string {
	var out []string
	for _, r := range read {
		if !slices.Contains(declared, r) {
			out = append(out, fmt.Sprintf("project %s reads the outputs of %s by stack reference, but does not declare it in DependsOn", project, r))
		}
	}
	for _, d := range declared {
		if !slices.Contains(read, d) {
			out = append(out, fmt.Sprintf("project %s declares a dependency on %s, but its program reads no output of it", project, d))
		}
	}
	return out
}

func TestEdgeMismatches(t *testing.T) {
	tests := []struct {
		name           string
		declared, read []string
		want           []string
	}{
		{"agree", []string{"a", "b"}, []string{"b", "a"}, nil},
		{"none", nil, nil, nil},
		{"an undeclared reference", []string{"a"}, []string{"a", "c"}, []string{"reads the outputs of c by stack reference, but does not declare it"}},
		{"a dependency nobody reads", []string{"a", "b"}, []string{"a"}, []string{"declares a dependency on b, but its program reads no output of it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := edgeMismatches("p", tt.declared, tt.read)
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %d mismatches like %q", got, len(tt.want), tt.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("got %q, want %q", got[i], tt.want[i])
				}
			}
		})
	}
}

// readRecorder is an in-memory backend that records which other projects'
// snapshots are loaded: what a program's stack references read.
type readRecorder struct {
	backend.Backend
	project string

	mu   sync.Mutex
	read map[string]bool
}

func (r *readRecorder) Load(ctx context.Context, project, stack string, c resource.Crypter) (*state.Snapshot, error) {
	if project != r.project {
		r.mu.Lock()
		r.read[project] = true
		r.mu.Unlock()
	}
	return r.Backend.Load(ctx, project, stack, c)
}

func (r *readRecorder) projects() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for p := range r.read {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// answers gives every question of p a value its validation accepts.
func answers(p *providers.Provider) map[string]any {
	cfg := map[string]any{}
	for _, q := range p.Questions {
		var v any = "edges-test-value"
		if q.Key == "kic-helm:fqdn" { // a host name in a domain
			v = "mara.example.com"
		}
		if q.Default != nil {
			if d := q.Default(func(string) string { return "" }); d != "" {
				v = d
			}
		}
		if q.Optional {
			continue
		}
		if q.Secret {
			v = resource.Secret{Element: v}
		}
		cfg[q.Key] = v
	}
	return cfg
}

// edgesKubeconfig is a kubeconfig file for the kubeconfig provider's
// kubeconfig project to read.
const edgesKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: edges
  cluster: {server: "https://127.0.0.1:6443"}
users:
- name: edges
  user: {token: edges-token}
contexts:
- name: edges
  context: {cluster: edges, user: edges}
`

// providerAnswers gives p's questions answers their validation accepts,
// with a kubeconfig file of the test's own for the kubeconfig provider.
func providerAnswers(t *testing.T, p *providers.Provider) map[string]any {
	cfg := answers(p)
	if p.Name == "kubeconfig" {
		path := filepath.Join(t.TempDir(), "config")
		if err := os.WriteFile(path, []byte(edgesKubeconfig), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg["kubernetes:kubeconfig"], cfg["kubernetes:context_name"] = path, "edges"
	}
	return cfg
}

// cloudContracts are the contracts of the plugins whose explicit providers
// the programs configure, by package (the fake plugins' copies).
var cloudContracts = map[string]string{
	"digitalocean": "../../e2e/fakecloud/plugins/testdata/digitalocean.json",
	"linode":       "../../e2e/fakecloud/plugins/testdata/linode.json",
}

// providerPlugins serves the packages of p's plugins with in-memory
// fakes: aws by the contract plugin, the others as configurable plugins
// (their explicit providers need one).
func providerPlugins(t *testing.T, p *providers.Provider, aws resource.Plugin) []resource.Plugin {
	list := plugins.Builtin(nil)
	for _, spec := range p.Plugins {
		if spec.Name == "aws" {
			list = append(list, aws)
			continue
		}
		pl := &plugintest.Plugin{Pkg: spec.Name}
		if path, ok := cloudContracts[spec.Name]; ok { // predict the contract's outputs, as contractPlugin does
			pl.OnCreate = loadContract(t, spec.Name, path).Create
		}
		list = append(list, &plugintest.Provider{Plugin: pl, Ver: spec.Version})
	}
	return list
}

// TestProviderEdgesMatchStackReferences previews every project of every
// built-in provider against an empty in-memory backend and checks that the
// projects its program reads by stack reference are exactly the ones it
// declares in DependsOn (Pulumi's aws plugin is stood in for by a
// contractPlugin). A project without a program reads nothing; its
// dependencies must still name projects of the provider.
func TestProviderEdgesMatchStackReferences(t *testing.T) {
	aws := loadContract(t, "aws", "../../projects/aws/testdata/aws-contract.json")
	// do's container-registry asks DigitalOcean's API for the account's
	// registry: this one has none.
	api := httptest.NewServer(http.NotFoundHandler())
	defer api.Close()
	for _, p := range Registry().All() {
		for _, proj := range p.Projects {
			t.Run(p.Name+"/"+proj.Name, func(t *testing.T) {
				for _, d := range proj.DependsOn {
					if _, ok := p.Project(d); !ok {
						t.Errorf("project %s depends on %s, which is no project of provider %s", proj.Name, d, p.Name)
					}
				}
				if proj.Program == nil {
					return
				}
				rec := &readRecorder{Backend: plugintest.NewBackend(), project: proj.Name, read: map[string]bool{}}
				dir := t.TempDir()
				rt := providers.Runtime{Workspace: dir, DataDir: dir, Executable: "/bin/true", Stack: "edges",
					Environ: []string{"DIGITALOCEAN_API_URL=" + api.URL}}
				_, err := engine.Preview(context.Background(), engine.Options{
					Project: proj.Name, Stack: "edges", Backend: rec, Plugins: providerPlugins(t, p, aws),
					Crypter: statetest.NewCrypter(1), Config: providerAnswers(t, p),
				}, proj.Program(rt))
				if err != nil {
					t.Fatalf("previewing %s: %v", proj.Name, err)
				}
				for _, m := range edgeMismatches(proj.Name, proj.DependsOn, rec.projects()) {
					t.Error(m)
				}
			})
		}
	}
}
