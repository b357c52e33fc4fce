package builtin

import "testing"

func TestRegistry(t *testing.T) {
	r := Registry()
	if p, err := r.Get(""); err != nil || p.Name != Default {
		t.Fatalf("Get(\"\") = %v, %v; want the default %s", p, err, Default)
	}
	for _, name := range []string{"local", "aws", "kubeconfig"} {
		if _, err := r.Get(name); err != nil {
			t.Errorf("Get(%s): %v", name, err)
		}
	}
}
