package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
)

var doks = Entry{Context: "do-sfo3-mara", Cluster: "do-sfo3-mara", User: "do-sfo3-mara-admin",
	ClusterValue: map[string]any{"server": "https://doks"}, UserValue: map[string]any{"token": "t"}}

// kubeconfigWith is a kubeconfig holding one context named name (its
// cluster and user too), current.
func kubeconfigWith(name, cluster string) string {
	return "apiVersion: v1\nkind: Config\nclusters:\n- name: " + cluster + "\n  cluster:\n    server: https://other\n" +
		"users:\n- name: " + name + "\n  user:\n    token: x\ncontexts:\n- name: " + name + "\n  context:\n    cluster: " + cluster +
		"\n    user: " + name + "\ncurrent-context: " + name + "\n"
}

func TestKubeconfigFor(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	other := write("other", kubeconfigWith("staging", "staging"))
	holds := write("holds", kubeconfigWith(doks.Context, doks.Cluster))
	clusterOnly := write("cluster", kubeconfigWith("renamed", doks.Cluster))
	broken := write("broken", "{not: [yaml")
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		name, kubeconfig, want string
	}{
		{"the file holding the context", strings.Join([]string{other, holds}, ":"), holds},
		{"the context before the cluster", strings.Join([]string{clusterOnly, holds}, ":"), holds},
		{"else the file holding the cluster", strings.Join([]string{other, clusterOnly}, ":"), clusterOnly},
		{"else the first", strings.Join([]string{missing, other}, ":"), missing},
		{"a broken file is passed over", strings.Join([]string{broken, holds}, ":"), holds},
		{"no KUBECONFIG", "", filepath.Join(dir, "home", ".kube", "config")},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := KubeconfigFor(map[string]string{"KUBECONFIG": c.kubeconfig, "HOME": filepath.Join(dir, "home")}, "DOKS cluster", doks)
			if err != nil || got != c.want {
				t.Errorf("KubeconfigFor = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// TestMergeCurrent: an unchanged cluster's context is made current again
// only when asked (MARA's update_kubeconfig), and the file is written only
// when that changes it.
func TestMergeCurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	if c, err := Merge(path, doks, true); err != nil || c != Added {
		t.Fatalf("first merge: %v, %v", c, err)
	}
	setCurrent := func(name string) {
		data, _ := os.ReadFile(path)
		data = []byte(strings.Replace(string(data), "current-context: "+doks.Context, "current-context: "+name, 1))
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	current := func() string {
		data, _ := os.ReadFile(path)
		for _, l := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(l, "current-context: "); ok {
				return v
			}
		}
		return ""
	}
	setCurrent("staging")
	if c, err := Merge(path, doks, false); err != nil || c != Same || current() != "staging" {
		t.Errorf("merge keeping the current context: %v, %v, current %q", c, err, current())
	}
	if c, err := Merge(path, doks, true); err != nil || c != MadeCurrent || current() != doks.Context {
		t.Errorf("merge making it current: %v, %v, current %q", c, err, current())
	}
	info, _ := os.Stat(path)
	if c, err := Merge(path, doks, true); err != nil || c != Same {
		t.Errorf("merge of a current, unchanged context: %v, %v", c, err)
	}
	if after, _ := os.Stat(path); !after.ModTime().Equal(info.ModTime()) {
		t.Error("a merge that changed nothing wrote the file")
	}
}

// TestMergeOutputSetsCurrentWhereKubectlReadsIt: with KUBECONFIG naming a
// file that sets another current context before the file holding the
// cluster, the hook that makes its context current sets it in that first
// file (kubectl reads the current context from the first file setting
// one); the hook that leaves an unchanged cluster alone changes nothing.
func TestMergeOutputSetsCurrentWhereKubectlReadsIt(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	raw := kubeconfigWith("do-sfo3-mara", "do-sfo3-mara")
	staging := kubeconfigWith("staging", "staging")
	for p, body := range map[string]string{first: staging, second: raw} {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	in := func(log *strings.Builder) providers.HookInput {
		return providers.HookInput{Project: "domk8s", Env: map[string]string{"KUBECONFIG": first + ":" + second, "HOME": dir},
			Outputs: resource.PropertyMap{"kubeconfig": resource.Secret{Element: raw}}, Log: log}
	}
	var log strings.Builder
	if err := MergeOutputOnChange(in(&log), "DOKS cluster", func(v string) ([]byte, error) { return []byte(v), nil }); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(first); string(data) != staging {
		t.Errorf("the hook keeping an unchanged cluster alone changed the first file:\n%s", data)
	}
	log.Reset()
	if err := MergeOutput(in(&log), "DOKS cluster", func(v string) ([]byte, error) { return []byte(v), nil }); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(first)
	if !strings.Contains(string(data), "current-context: do-sfo3-mara") || !strings.Contains(string(data), "name: staging") {
		t.Errorf("the first file does not make do-sfo3-mara current, keeping its own entries:\n%s", data)
	}
	if !strings.Contains(log.String(), "Set the current context to do-sfo3-mara in "+first+", where kubectl reads it first") {
		t.Errorf("the hook does not say where it set the current context:\n%s", log.String())
	}
}
