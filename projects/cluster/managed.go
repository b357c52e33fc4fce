package cluster

import (
	"fmt"
	"strconv"

	"github.com/runnerhq/runner/engine"
)

// Setting returns the trimmed plain value of the config key, or def when
// it is unset or empty.
func Setting(ctx *engine.Context, key, def string) (string, error) { return setting(ctx, key, def) }

// Default is a config key and its default, for Settings.
type Default struct{ Key, Value string }

// Settings returns the values of keys (each its default when unset), in
// order.
func Settings(ctx *engine.Context, keys ...Default) ([]string, error) {
	out := make([]string, len(keys))
	for i, k := range keys {
		v, err := setting(ctx, k.Key, k.Value)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// NodeCount reads the value v of the config key as a number of nodes, 1
// or more.
func NodeCount(key, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s is %q: it must be a whole number of nodes, 1 or more", key, v)
	}
	return n, nil
}

// TokenProvider declares a cloud plugin's explicit provider (typ, such as
// pulumi:providers:linode, named name) configured with the secret config
// value of tokenKey, or with nothing when envToken says the token's
// environment variable is set (the plugin reads it from its environment,
// which alone receives it).
func TokenProvider(ctx *engine.Context, typ, name, tokenKey string, envToken bool) *engine.Resource {
	inputs := engine.Inputs{}
	if tok, ok := ctx.Config(tokenKey); ok && !envToken {
		inputs["token"] = engine.Secret(tok)
	}
	return ctx.Resource(typ, name, inputs)
}

// ExportCluster exports what a managed cluster's project gives the
// kubeconfig project and its hook: the cluster's name, its ID, its API
// endpoint and its kubeconfig (a YAML document, exported secret).
func ExportCluster(ctx *engine.Context, c *engine.Resource, name, endpoint, kubeconfig engine.Output) {
	ctx.Export(ClusterNameOutput, name)
	ctx.Export("cluster_id", c.ID())
	ctx.Export("endpoint", endpoint)
	ctx.Export(KubeconfigOutput, engine.Secret(kubeconfig))
}
