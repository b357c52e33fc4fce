package aws

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
)

const arn = "arn:aws:eks:us-west-1:123456789012:cluster/mara-dev"

var eksOutputs = resource.PropertyMap{
	"cluster_name": "mara-dev", "cluster_arn": arn, "endpoint": "https://ABC.gr7.us-west-1.eks.amazonaws.com",
	"certificate_authority": "Q0E=", "region": "us-west-1", "kubeconfig": resource.Secret{Element: "ignored"},
}

// existing is a kubeconfig with another cluster, current, and a comment.
const existing = `apiVersion: v1
kind: Config
# the team's cluster
clusters:
- cluster:
    server: https://other.example
  name: other
contexts:
- context:
    cluster: other
    user: other
  name: other
current-context: other
preferences: {}
users:
- name: other
  user:
    token: other-token
`

// kubeconfig reads the kubeconfig at path.
func kubeconfig(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s is not YAML: %v\n%s", path, err, data)
	}
	return doc
}

// entry returns the entry named name of the list of doc.
func entry(doc map[string]any, list, name string) map[string]any {
	l, _ := doc[list].([]any)
	for _, e := range l {
		if m, _ := e.(map[string]any); m["name"] == name {
			return m
		}
	}
	return nil
}

func TestUpdateKubeconfigHook(t *testing.T) {
	tests := []struct {
		name     string
		file     string // "" for none
		kubeEnv  bool   // KUBECONFIG names the file (with a second path)
		profile  string
		entries  int // clusters after the hook
		log      string
		wantArgs []any
	}{
		{"new file in ~/.kube", "", false, "", 1, "Added new context " + arn,
			[]any{"eks-token", "--cluster-name", "mara-dev", "--region", "us-west-1"}},
		{"merged beside other contexts", existing, true, "ops", 2, "Added new context",
			[]any{"eks-token", "--cluster-name", "mara-dev", "--region", "us-west-1", "--profile", "ops"}},
		{"empty file", "\n", true, "none", 1, "Added new context", nil},
		{"empty lists", "clusters: []\nusers:\ncontexts: []\n", true, "", 1, "Added new context", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, ".kube", "config")
			env := map[string]string{"HOME": home}
			if tt.kubeEnv {
				path = filepath.Join(home, "kc.yaml")
				env["KUBECONFIG"] = path + string(os.PathListSeparator) + filepath.Join(home, "second")
			}
			if tt.file != "" {
				if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var log strings.Builder
			in := providers.HookInput{Project: "eks", Outputs: eksOutputs, Env: env, Log: &log,
				Config:  map[string]any{"aws:region": "us-west-1", "aws:profile": tt.profile},
				Runtime: providers.Runtime{Executable: "/usr/local/bin/runner"}}
			if err := updateKubeconfig(context.Background(), in); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(log.String(), tt.log) || !strings.Contains(log.String(), path) {
				t.Errorf("log %q", log.String())
			}
			fi, err := os.Stat(path)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("kubeconfig mode %v (%v), want 0600", fi.Mode(), err)
			}
			doc := kubeconfig(t, path)
			if doc["current-context"] != arn || len(doc["clusters"].([]any)) != tt.entries || doc["apiVersion"] != "v1" {
				t.Fatalf("kubeconfig %v", doc)
			}
			cl, u, c := entry(doc, "clusters", arn), entry(doc, "users", arn), entry(doc, "contexts", arn)
			if cl == nil || u == nil || c == nil ||
				!reflect.DeepEqual(cl["cluster"], map[string]any{"server": "https://ABC.gr7.us-west-1.eks.amazonaws.com", "certificate-authority-data": "Q0E="}) ||
				!reflect.DeepEqual(c["context"], map[string]any{"cluster": arn, "user": arn}) {
				t.Fatalf("entries %v %v %v", cl, u, c)
			}
			exec := u["user"].(map[string]any)["exec"].(map[string]any)
			if exec["command"] != "/usr/local/bin/runner" || exec["apiVersion"] != "client.authentication.k8s.io/v1beta1" ||
				tt.wantArgs != nil && !reflect.DeepEqual(exec["args"], tt.wantArgs) {
				t.Errorf("exec entry %v", exec)
			}
			if (tt.profile == "ops") != (exec["env"] != nil) {
				t.Errorf("exec env %v for profile %q", exec["env"], tt.profile)
			}
			if tt.file == existing {
				if o := entry(doc, "users", "other"); o == nil || o["user"].(map[string]any)["token"] != "other-token" || entry(doc, "contexts", "other") == nil {
					t.Errorf("the other entries are gone: %v", doc)
				}
				if data, _ := os.ReadFile(path); !strings.Contains(string(data), "# the team's cluster") {
					t.Errorf("the file's comment is gone:\n%s", data)
				}
			}
			// A second run finds the entries as they are: the current context
			// the user chose since stays, and the file is not written.
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			chosen := strings.Replace(string(data), "current-context: "+arn, "current-context: other", 1)
			if err := os.WriteFile(path, []byte(chosen), 0o600); err != nil {
				t.Fatal(err)
			}
			log.Reset()
			if err := updateKubeconfig(context.Background(), in); err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(path); string(data) != chosen || !strings.Contains(log.String(), "is up to date; the current context was left as it is") {
				t.Errorf("a second run changed the kubeconfig (log %q):\n%s", log.String(), data)
			}
			// A new endpoint (the cluster made again) replaces the entries,
			// still one of each, and makes the context current again.
			in.Outputs = eksOutputs.Copy(0)
			in.Outputs["endpoint"] = "https://DEF.gr7.us-west-1.eks.amazonaws.com"
			log.Reset()
			if err := updateKubeconfig(context.Background(), in); err != nil {
				t.Fatal(err)
			}
			doc = kubeconfig(t, path)
			if len(doc["clusters"].([]any)) != tt.entries || len(doc["users"].([]any)) != tt.entries || doc["current-context"] != arn ||
				!strings.Contains(log.String(), "Updated context "+arn) || !strings.Contains(log.String(), "it is now the current context") {
				t.Errorf("after a run with a new endpoint: %v, log %q", doc, log.String())
			}
		})
	}
}

func TestUpdateKubeconfigRefuses(t *testing.T) {
	tests := []struct {
		name, file string
		outputs    resource.PropertyMap
		want       string
	}{
		{"malformed YAML", "clusters:\n- name: a\n  cluster: {server: x\nusers: []\n", eksOutputs, "line "},
		{"not a mapping", "- a\n- b\n", eksOutputs, "line 1: the kubeconfig is not a YAML mapping"},
		{"clusters not a list", "apiVersion: v1\nclusters: nope\n", eksOutputs, "line 2: clusters is not a list"},
		{"entry not a mapping", "users:\n- just-a-name\n", eksOutputs, "line 2: an entry of users is not a mapping"},
		{"no cluster", existing, resource.PropertyMap{}, "exported no cluster_name"},
		// kubectl reads one of the two lists, runner merged into the other.
		{"a list written twice", "apiVersion: v1\nclusters:\n- name: a\n  cluster: {server: x}\nclusters: []\n", eksOutputs,
			"line 5: the key clusters is written twice, on lines 2 and 5"},
		{"a nested key written twice", "users:\n- name: u\n  user: {token: a}\n  user: {token: b}\n", eksOutputs,
			"line 4: the key user is written twice, on lines 3 and 4"},
		// The second document was dropped when the file was written back.
		{"two documents", "apiVersion: v1\nkind: Config\n---\nnotes: mine\n", eksOutputs,
			"line 3: a second YAML document starts there"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config")
			if err := os.WriteFile(path, []byte(tt.file), 0o640); err != nil {
				t.Fatal(err)
			}
			in := providers.HookInput{Project: "eks", Outputs: tt.outputs, Env: map[string]string{"KUBECONFIG": path},
				Log: &strings.Builder{}, Runtime: providers.Runtime{Executable: "/usr/local/bin/runner"}}
			err := updateKubeconfig(context.Background(), in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if tt.outputs != nil && len(tt.outputs) > 0 && !strings.Contains(err.Error(), path) {
				t.Errorf("the error does not name %s: %v", path, err)
			}
			data, _ := os.ReadFile(path)
			fi, _ := os.Stat(path)
			if string(data) != tt.file || fi.Mode().Perm() != 0o640 {
				t.Errorf("the file changed: %v\n%s", fi.Mode(), data)
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
				t.Errorf("files left beside it: %v", entries)
			}
		})
	}
}

func TestKubeconfigPath(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
		err  string
	}{
		{map[string]string{"KUBECONFIG": "/a/one" + string(os.PathListSeparator) + "/b/two", "HOME": "/h"}, "/a/one", ""},
		{map[string]string{"KUBECONFIG": string(os.PathListSeparator) + "/b/two", "HOME": "/h"}, "/b/two", ""},
		{map[string]string{"HOME": "/h"}, "/h/.kube/config", ""},
		{map[string]string{}, "", "neither KUBECONFIG nor HOME"},
	}
	for _, tt := range tests {
		got, err := kubeconfigPath(tt.env)
		if got != tt.want || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%v: %q %v, want %q %q", tt.env, got, err, tt.want, tt.err)
		}
	}
}

// A kubeconfig that is a link to a file not made yet (a dotfiles checkout,
// say) stays a link: the file is made where it points. A loop of links is
// refused.
func TestUpdateKubeconfigThroughALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "kubeconfig")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config")
	if err := os.Symlink(filepath.Join("dotfiles", "kubeconfig"), link); err != nil {
		t.Fatal(err)
	}
	in := providers.HookInput{Project: "eks", Outputs: eksOutputs, Env: map[string]string{"KUBECONFIG": link},
		Log: &strings.Builder{}, Runtime: providers.Runtime{Executable: "/usr/local/bin/runner"}}
	if err := updateKubeconfig(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if doc := kubeconfig(t, target); doc["current-context"] != arn {
		t.Errorf("the link's target holds %v", doc)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	in.Env["KUBECONFIG"] = loop
	if err := updateKubeconfig(context.Background(), in); err == nil || !strings.Contains(err.Error(), "a loop of symbolic links") {
		t.Errorf("a loop of links: %v", err)
	}
}

// An empty document after the kubeconfig's (a trailing ---) is no second
// document.
func TestUpdateKubeconfigTrailingSeparator(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(existing+"---\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := providers.HookInput{Project: "eks", Outputs: eksOutputs, Env: map[string]string{"KUBECONFIG": path},
		Log: &strings.Builder{}, Runtime: providers.Runtime{Executable: "/usr/local/bin/runner"}}
	if err := updateKubeconfig(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if doc := kubeconfig(t, path); entry(doc, "clusters", "other") == nil || doc["current-context"] != arn {
		t.Errorf("merged into %v", doc)
	}
}
