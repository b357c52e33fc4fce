package clouds

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBadInput: each bad input is refused with exit 3 and a message
// naming what is wrong and what to do, and nothing changes: the fake
// cloud stays empty, no state is written and the stack config is as it
// was.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name     string
		provider string
		setup    func(t *testing.T) *env
		want     []string // in runner's output (stdout and stderr)
	}{
		{"zones outside the region", "aws", func(t *testing.T) *env {
			e := maraWorkspace(t)
			e.ok("config", "set", "vpc:azs", "us-west-2a,us-west-2b")
			return e
		}, []string{"vpc:azs", "the zone us-west-2a is in region us-west-2, not in aws:region us-west-1"}},
		{"more min nodes than max", "aws", func(t *testing.T) *env {
			e := maraWorkspace(t)
			e.ok("config", "set", "eks:min_size", "13")
			return e
		}, []string{"eks:min_size (13) is larger than eks:max_size (12)"}},
		{"a context missing from the kubeconfig", "kubeconfig", func(t *testing.T) *env {
			e, _ := kubeconfigWorkspace(t, ownKubeconfig, "qa")
			return e
		}, []string{"kubernetes:context_name", "qa", "prod", "staging"}},
		{"a missing plugin", "aws", func(t *testing.T) *env {
			e := maraWorkspace(t)
			e.path = withoutDir(os.Getenv("PATH"), fakeBin)
			return e
		}, []string{"aws 7.48.0", "runner plugin install"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { refused(t, c.setup(t), c.provider, c.want) })
	}
}

// refused runs up in e, which must exit 3 with a message saying each of
// want and change nothing: the fake cloud empty, no state written, the
// stack config as it was. It returns the run.
func refused(t *testing.T, e *env, provider string, want []string) result {
	t.Helper()
	cfg := tree(t, filepath.Join(e.dir, "config"))
	r := e.fails(3, "-p", provider, "up", "--yes")
	for _, w := range want {
		if !strings.Contains(r.Stdout+r.Stderr, w) {
			t.Errorf("the refusal does not say %q:\n%s", w, r)
		}
	}
	e.cloudEmpty("after the refusal")
	if files := e.stateFiles(); len(files) != 0 {
		t.Errorf("the refused up wrote state: %v", slices.Sorted(maps.Keys(files)))
	}
	after := tree(t, filepath.Join(e.dir, "config"))
	for p, data := range after {
		if cfg[p] != data {
			t.Errorf("the refused up changed %s", p)
		}
	}
	return r
}

// withoutDir returns the PATH list without dir.
func withoutDir(path, dir string) string {
	var out []string
	for _, d := range filepath.SplitList(path) {
		if d != dir {
			out = append(out, d)
		}
	}
	return strings.Join(out, string(os.PathListSeparator))
}

// TestAZListedTwice: a zone listed twice in vpc:azs passed validation,
// and preview -p aws failed in the vpc program (exit 1: a subnet's URN
// declared twice). Now validation names the key and the zone, exit 3,
// before anything runs (hostile tester's regression).
func TestAZListedTwice(t *testing.T) {
	e := maraWorkspace(t)
	cfg := filepath.Join(e.dir, "config", "pulumi", "Pulumi.dev.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "    - us-west-1b\n", "    - us-west-1a\n", 1)
	if edited == string(data) {
		t.Fatal("MARA's example lists no us-west-1b under vpc:azs")
	}
	if err := os.WriteFile(cfg, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"vpc:azs", "us-west-1a is given twice"}
	preview := e.fails(3, "-p", "aws", "preview")
	up := refused(t, e, "aws", want) // nothing made by either
	for op, r := range map[string]result{"preview": preview, "up": up} {
		for _, w := range want {
			if !strings.Contains(r.Stderr, w) {
				t.Errorf("%s: stderr does not say %q:\n%s", op, w, r.Stderr)
			}
		}
	}
}

// serverlessKubeconfig has a context lab (line 10) whose cluster has no
// server.
const serverlessKubeconfig = "apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster: {insecure-skip-tls-verify: true}\n" +
	"users:\n- name: u\n  user: {token: hostile-kube-token}\ncontexts:\n- name: lab\n  context: {cluster: lab, user: u}\n"

// TestKubeconfigContextWithoutServer: a context whose cluster has no
// server passed validation; the kubernetes plugin refused it only after
// the kubeconfig project had run (exit 3 with state written). Now
// validation names the file, the line and the cluster, before anything
// runs (hostile tester's regression).
func TestKubeconfigContextWithoutServer(t *testing.T) {
	e, file := kubeconfigWorkspace(t, serverlessKubeconfig, "lab")
	want := file + ": line 10: the context lab names the cluster lab, which has no server"
	if r := refused(t, e, "kubeconfig", []string{want}); !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, r.Stderr)
	}
}
