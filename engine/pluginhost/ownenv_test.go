package pluginhost

import (
	"slices"
	"testing"
)

// TestEnvironOwnEnv: a variable a package owns (an API token) reaches that
// package's plugin only; PULUMI_CONFIG and PULUMI_PROJECT are the pool's.
func TestEnvironOwnEnv(t *testing.T) {
	pool := &Pool{opts: PoolOptions{
		Environ: []string{"PATH=/bin", "DIGITALOCEAN_TOKEN=tok", "LINODE_TOKEN=lin", "PULUMI_CONFIG=old"},
		OwnEnv:  map[string]string{"DIGITALOCEAN_TOKEN": "digitalocean", "LINODE_TOKEN": "linode"},
	}}
	tests := []struct {
		pkg        string
		has, lacks []string
	}{
		{"digitalocean", []string{"PATH=/bin", "DIGITALOCEAN_TOKEN=tok", "PULUMI_CONFIG={}"}, []string{"LINODE_TOKEN=lin", "PULUMI_CONFIG=old"}},
		{"kubernetes", []string{"PATH=/bin", "PULUMI_PROJECT=p"}, []string{"DIGITALOCEAN_TOKEN=tok", "LINODE_TOKEN=lin"}},
		{"linode", []string{"LINODE_TOKEN=lin"}, []string{"DIGITALOCEAN_TOKEN=tok"}},
	}
	for _, tt := range tests {
		env := pool.environ(tt.pkg, "p", "{}")
		for _, kv := range tt.has {
			if !slices.Contains(env, kv) {
				t.Errorf("%s's environment %v lacks %s", tt.pkg, env, kv)
			}
		}
		for _, kv := range tt.lacks {
			if slices.Contains(env, kv) {
				t.Errorf("%s's environment %v has %s", tt.pkg, env, kv)
			}
		}
	}
}
