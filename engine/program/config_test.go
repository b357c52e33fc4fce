package program_test

import (
	"context"
	"reflect"
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
