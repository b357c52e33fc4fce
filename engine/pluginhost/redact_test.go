package pluginhost

import (
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

func TestRedactor(t *testing.T) {
	var r redactor
	r.addSecrets(resource.PropertyMap{
		"pw":    resource.Secret{Element: "hunter22"},
		"deep":  resource.Secret{Element: map[string]any{"k": []any{"nested-one"}}},
		"short": resource.Secret{Element: "ab"},
		"plain": "visible",
	})
	for _, c := range []struct{ in, want string }{
		{"password hunter22 rejected", "password [secret] rejected"},
		{"nested-one and hunter22", "[secret] and [secret]"},
		{"ab stays (too short)", "ab stays (too short)"},
		{"visible stays", "visible stays"},
	} {
		if got := r.apply(c.in); got != c.want {
			t.Errorf("apply(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	var empty redactor
	if got := empty.apply("hunter22"); got != "hunter22" {
		t.Errorf("an empty redactor changed %q", got)
	}
}

// A secret that holds a shorter one is masked whole, whatever order the
// secrets were learnt in (a Replacer tries its strings in argument order).
func TestRedactorLongerFirst(t *testing.T) {
	for i := 0; i < 20; i++ {
		var r redactor
		r.addSecrets(resource.PropertyMap{"a": resource.Secret{Element: "abc"}})
		r.addSecrets(resource.PropertyMap{
			"b": resource.Secret{Element: "abcdef-long"},
			"c": resource.Secret{Element: "abcd"},
			"d": resource.Secret{Element: "zzabcdefzz"},
		})
		if got := r.apply("x abcdef-long y abcd z"); got != "x [secret] y [secret] z" {
			t.Fatalf("apply = %q: part of a longer secret shows", got)
		}
	}
}

// The pool masks the secrets it is given (the passphrase plugins inherit)
// besides those it hands plugins itself.
func TestPoolMasksGivenSecrets(t *testing.T) {
	pool := NewPool(PoolOptions{Secrets: []string{"the-passphrase", ""}})
	if got := pool.redact.apply("env the-passphrase here"); got != "env [secret] here" {
		t.Fatalf("apply = %q", got)
	}
}
