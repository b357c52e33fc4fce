package cluster

import (
	"fmt"

	"github.com/runnerhq/runner/engine"
)

// The Harbor registry's secrets (MARA's linode:* keys: the linode
// provider's namespace keeps them out of the secrets project).
const (
	HarborAdminKey = "linode:harbor_password"
	HarborDBKey    = "linode:harbor_db_password"
	HarborSudoKey  = "linode:harbor_sudo_user_password"
	// HarborURLKey is where Harbor is reached (default: https://harbor.<kic-helm:fqdn>).
	HarborURLKey = "linode:harbor_url"
)

// harborChart is Harbor's chart (config namespace harbor).
var harborChart = chart{ns: "harbor", name: "harbor", version: "1.16.2", repo: "https://helm.goharbor.io", timeout: 600}

// Harbor is the harbor project of the linode provider: MARA's Harbor
// registry (Helm) in namespace harbor, its admin and database passwords
// from the stack config's secrets, exposed through the ingress controller,
// and a Secret harbor-users holding the sudo user's password for the
// registry's configuration. Outputs: namespace, release, url, admin_user.
func Harbor(ctx *engine.Context) error {
	p := Provider(ctx)
	fqdn, err := setting(ctx, "kic-helm:fqdn", "mara.example.com")
	if err != nil {
		return err
	}
	url, err := setting(ctx, HarborURLKey, "https://harbor."+fqdn)
	if err != nil {
		return err
	}
	var pw [3]engine.Output
	for i, k := range []string{HarborAdminKey, HarborDBKey, HarborSudoKey} {
		v, ok := ctx.Config(k)
		if !ok {
			return fmt.Errorf("%s is not set: give it with `runner config set --secret %s`", k, k)
		}
		pw[i] = v
	}
	admin, db, sudo := pw[0], pw[1], pw[2]
	ns := namespace(ctx, p, "harbor", nil)
	rel, err := helmRelease(ctx, p, harborChart, release{name: "harbor", namespace: nameOf(ns), values: map[string]any{
		"externalURL":         url,
		"harborAdminPassword": engine.Secret(admin),
		"database":            map[string]any{"internal": map[string]any{"password": engine.Secret(db)}},
		"expose": map[string]any{"type": "ingress", "tls": map[string]any{"enabled": false},
			"ingress": map[string]any{"className": IngressClass, "hosts": map[string]any{"core": "harbor." + fqdn}}},
	}})
	if err != nil {
		return err
	}
	ctx.Resource("kubernetes:core/v1:Secret", "harbor-users", engine.Inputs{
		"metadata":   map[string]any{"name": "harbor-users", "namespace": nameOf(ns)},
		"type":       "Opaque",
		"stringData": map[string]any{"sudo_user_password": engine.Secret(sudo)},
	}, engine.Provider(p))
	ctx.Export(NamespaceOutput, nameOf(ns))
	ctx.Export("release", rel.Output("name"))
	ctx.Export("url", url)
	ctx.Export("admin_user", "admin")
	return nil
}
