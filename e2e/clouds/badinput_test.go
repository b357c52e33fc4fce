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
			e, _ := kubeconfigWorkspace(t, "qa")
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
// stack config as it was.
func refused(t *testing.T, e *env, provider string, want []string) {
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
