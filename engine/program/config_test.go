package program_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
)

func TestPlainConfig(t *testing.T) {
	cfg := map[string]any{
		"vpc:azs": []any{"us-east-1a", "us-east-1b"}, "p:own": "x",
		"app:pw": resource.Secret{Element: "hush"}, "app:list": []any{"a", resource.Secret{Element: "b"}},
	}
	tests := []struct {
		key   string
		want  any
		ok    bool
		error string
	}{
		{"vpc:azs", []any{"us-east-1a", "us-east-1b"}, true, ""},
		{"own", "x", true, ""},
		{"vpc:cidr", nil, false, ""},
		{"app:pw", nil, true, "the config value app:pw is secret"},
		{"app:list", nil, true, "runner config set app:list <value>"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			var got any
			var ok bool
			var err error
			e := env()
			e.Config = cfg
			_, _ = program.Run(context.Background(), e, func(c *program.Context) error {
				got, ok, err = c.PlainConfig(tt.key)
				return nil
			})
			if tt.error != "" {
				if err == nil || !strings.Contains(err.Error(), tt.error) || strings.Contains(err.Error(), "hush") {
					t.Fatalf("error %v, want %q", err, tt.error)
				}
				return
			}
			if err != nil || ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v %v %v, want %v %v", got, ok, err, tt.want, tt.ok)
			}
		})
	}
}

func TestConfigKeysAndPlainString(t *testing.T) {
	e := env()
	e.Config = map[string]any{
		"p:port":               "8080",
		"app:name":             "web",
		"prometheus:adminpass": resource.Secret{Element: "hunter2"},
		"vpc:azs":              []any{"a", "b"},
		"eks:count":            float64(3),
	}
	var keys, secrets []string
	type read struct {
		val     string
		ok      bool
		errWant string
	}
	got := map[string]read{}
	_, err := program.Run(context.Background(), e, func(c *program.Context) error {
		keys, secrets = c.ConfigKeys(), c.SecretConfigKeys()
		for _, k := range []string{"port", "app:name", "prometheus:adminpass", "vpc:azs", "eks:count", "absent:key"} {
			v, ok, err := c.PlainString(k)
			r := read{val: v, ok: ok}
			if err != nil {
				r.errWant = err.Error()
			}
			got[k] = r
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"app:name", "eks:count", "p:port", "prometheus:adminpass", "vpc:azs"}; !slices.Equal(keys, want) {
		t.Errorf("ConfigKeys = %q, want %q", keys, want)
	}
	if want := []string{"prometheus:adminpass"}; !slices.Equal(secrets, want) {
		t.Errorf("SecretConfigKeys = %q, want %q", secrets, want)
	}
	tests := []struct {
		key, val string
		ok       bool
		err      string
	}{
		{"port", "8080", true, ""},
		{"app:name", "web", true, ""},
		{"eks:count", "3", true, ""},
		{"absent:key", "", false, ""},
		{"prometheus:adminpass", "", true, "is secret"},
		{"vpc:azs", "", true, "structured value"},
	}
	for _, tt := range tests {
		r := got[tt.key]
		if r.val != tt.val || r.ok != tt.ok || (tt.err == "") != (r.errWant == "") || !strings.Contains(r.errWant, tt.err) {
			t.Errorf("PlainString(%s) = %q, %v, %q; want %q, %v, error holding %q", tt.key, r.val, r.ok, r.errWant, tt.val, tt.ok, tt.err)
		}
		if strings.Contains(r.errWant, "hunter2") {
			t.Errorf("PlainString(%s) error shows the secret: %s", tt.key, r.errWant)
		}
	}
}
