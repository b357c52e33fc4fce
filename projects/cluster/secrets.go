package cluster

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/runnerhq/runner/engine"
)

// The secrets project's outputs (SecretsProject, SecretsNamespacesOutput,
// SecretsSecretsOutput, in sirius_settings.go) are maps from a namespace
// group (the part of a secret config key before ':') to the Namespace and
// the Secret made for it.

// providerPackages are config namespaces of provider plugins: their
// secrets (credentials) configure plugins and stay out of the cluster.
var providerPackages = map[string]bool{"aws": true, "kubernetes": true, "digitalocean": true, "linode": true}

// secretGroup is one namespace group of secret config keys.
type secretGroup struct {
	// namespace is the group (the config namespace) and the Kubernetes
	// namespace of its Secret.
	namespace string
	// keys maps each data key of the Secret to its config key.
	keys map[string]string
}

// secretName is the name of a group's Secret.
func secretName(group string) string { return group + "-secrets" }

var (
	dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dataKey  = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)
)

// groupSecrets groups secret config keys by namespace, leaving out the
// provider packages' own, sorted by namespace. A group that cannot name a
// Kubernetes namespace, or a key that cannot name a Secret's data key, is
// an error naming the config key.
func groupSecrets(keys []string) ([]secretGroup, error) {
	byNS := map[string]*secretGroup{}
	for _, key := range keys {
		ns, name, ok := strings.Cut(key, ":")
		if !ok || providerPackages[ns] {
			continue
		}
		if len(ns) > 63 || !dnsLabel.MatchString(ns) {
			return nil, fmt.Errorf("the secret config key %s cannot go into the cluster: its namespace %q must be a Kubernetes namespace name (lower-case letters, digits and '-', at most 63)", key, ns)
		}
		if !dataKey.MatchString(name) {
			return nil, fmt.Errorf("the secret config key %s cannot go into the cluster: %q must be a Secret data key (letters, digits, '-', '_' and '.')", key, name)
		}
		g := byNS[ns]
		if g == nil {
			g = &secretGroup{namespace: ns, keys: map[string]string{}}
			byNS[ns] = g
		}
		g.keys[name] = key
	}
	out := make([]secretGroup, 0, len(byNS))
	for _, g := range byNS {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].namespace < out[j].namespace })
	return out, nil
}

// Secrets puts the stack's secret config into the cluster, as MARA does:
// for each namespace group of secret keys (prometheus:adminpass,
// sirius:accounts_pwd, ...; not those of the provider plugins) a Namespace
// of that name and in it an Opaque Secret "<group>-secrets" whose data keys
// are the config keys' names (runner gives a provider's secret questions
// as secrets even when the stack config holds them in plain text, as
// MARA's example holds prometheus:adminpass). Outputs: namespaces and
// secrets, maps from the group to the Namespace's and the Secret's names.
func Secrets(ctx *engine.Context) error {
	groups, err := groupSecrets(ctx.SecretConfigKeys())
	if err != nil {
		return err
	}
	p := Provider(ctx)
	namespaces, secrets := map[string]any{}, map[string]any{}
	for _, g := range groups {
		ns := namespace(ctx, p, g.namespace, nil)
		data := map[string]any{}
		for name, key := range g.keys {
			v, _ := ctx.Config(key)
			data[name] = engine.Secret(v)
		}
		name := secretName(g.namespace)
		ctx.Resource(secretType, name, engine.Inputs{
			"metadata":   map[string]any{"name": name, "namespace": nameOf(ns)},
			"type":       "Opaque",
			"stringData": engine.Secret(data),
		}, engine.Provider(p))
		namespaces[g.namespace] = nameOf(ns)
		secrets[g.namespace] = name
	}
	ctx.Export(SecretsNamespacesOutput, namespaces)
	ctx.Export(SecretsSecretsOutput, secrets)
	return nil
}

// secretsOf reads the namespace and the Secret the secrets project made for
// group, failing with what to set when it made none.
func secretsOf(ctx *engine.Context, group, key string) (ns, secret engine.Output) {
	ref := ctx.StackReference(SecretsProject)
	pick := func(output string) engine.Output {
		return ref.Output(output).Apply(func(v any) (any, error) {
			m, _ := v.(map[string]any)
			s, ok := m[group].(string)
			if !ok || s == "" {
				return nil, fmt.Errorf("the secrets project made no Secret for %s; set %s with `runner config set --secret %s <value>`", group, key, key)
			}
			return s, nil
		})
	}
	return pick(SecretsNamespacesOutput), pick(SecretsSecretsOutput)
}
