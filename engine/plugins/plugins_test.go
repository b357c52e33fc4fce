package plugins

import "testing"

func TestBuiltinServesEachPackageOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Builtin() {
		if seen[p.Package()] {
			t.Errorf("package %q served twice", p.Package())
		}
		seen[p.Package()] = true
	}
	for _, want := range []string{"random", "tls", "command", "file"} {
		if !seen[want] {
			t.Errorf("no plugin for package %q", want)
		}
	}
}
