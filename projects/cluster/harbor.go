package cluster

import (
	"fmt"

	"github.com/runnerhq/runner/engine"
)

// The Harbor registry's config keys (MARA's linode:* keys: the linode
// provider's namespace keeps the secrets out of the secrets project).
const (
	HarborAdminKey = "linode:harbor_password"
	HarborDBKey    = "linode:harbor_db_password"
	HarborSudoKey  = "linode:harbor_sudo_user_password"
	// FQDNKey is the application's host name: Harbor is served at
	// harbor.<it>.
	FQDNKey = "kic-helm:fqdn"
	// SOAEmailKey is the email address of the registry domain's owner
	// (MARA's Harbor instance gave it to Let's Encrypt): the account of
	// Harbor's certificate.
	SOAEmailKey = "linode:soa_email"
)

// Harbor's TLS: a certificate from Let's Encrypt (ACME, the HTTP-01
// challenge answered through the ingress controller) that cert-manager
// keeps in the Secret HarborTLSSecret, through the ClusterIssuer
// HarborIssuer.
const (
	HarborIssuer    = "harbor-letsencrypt"
	HarborTLSSecret = "harbor-tls"
	letsEncrypt     = "https://acme-v02.api.letsencrypt.org/directory"
)

// harborChart is Harbor's chart (config namespace harbor).
var harborChart = chart{ns: "harbor", name: "harbor", version: "1.16.2", repo: "https://helm.goharbor.io", timeout: 600}

// Harbor is the harbor project of the linode provider: MARA's Harbor
// registry (Helm) in namespace harbor at https://harbor.<kic-helm:fqdn>,
// its admin and database passwords from the stack config's secrets,
// exposed through the ingress controller with a Let's Encrypt certificate
// (account linode:soa_email) from cert-manager, and a Secret harbor-users
// holding the sudo user's password for the registry's configuration.
// Outputs: namespace, release, url, host, admin_user.
func Harbor(ctx *engine.Context) error {
	p := Provider(ctx)
	var set [2]string
	for i, k := range []string{FQDNKey, SOAEmailKey} {
		v, err := setting(ctx, k, "")
		if err != nil {
			return err
		}
		if v == "" {
			return fmt.Errorf("%s is not set: give it with `runner config set %s <value>`", k, k)
		}
		set[i] = v
	}
	host, email := "harbor."+set[0], set[1]
	var pw [3]engine.Output
	for i, k := range []string{HarborAdminKey, HarborDBKey, HarborSudoKey} {
		v, ok := ctx.Config(k)
		if !ok {
			return fmt.Errorf("%s is not set: give it with `runner config set --secret %s`", k, k)
		}
		pw[i] = v
	}
	admin, db, sudo := pw[0], pw[1], pw[2]
	// The ClusterIssuer is cert-manager's: made once the certmgr project
	// installed its CRDs.
	name := ctx.StackReference(CertmgrProject).Output(CRDsInstalledOutput).Apply(func(v any) (any, error) {
		if b, _ := v.(bool); !b {
			return nil, fmt.Errorf("the certmgr project has not installed cert-manager's CRDs (its %s output is %v): run it first", CRDsInstalledOutput, v)
		}
		return HarborIssuer, nil
	})
	issuer := ctx.Resource("kubernetes:cert-manager.io/v1:ClusterIssuer", HarborIssuer, engine.Inputs{
		"apiVersion": "cert-manager.io/v1", "kind": "ClusterIssuer",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{"acme": map[string]any{
			"server": letsEncrypt, "email": email,
			"privateKeySecretRef": map[string]any{"name": HarborIssuer + "-account"},
			"solvers":             []any{map[string]any{"http01": map[string]any{"ingress": map[string]any{"ingressClassName": IngressClass}}}},
		}},
	}, engine.Provider(p))
	ns := namespace(ctx, p, "harbor", nil)
	rel, err := helmRelease(ctx, p, harborChart, release{name: "harbor", namespace: nameOf(ns), values: map[string]any{
		"externalURL":         "https://" + host,
		"harborAdminPassword": engine.Secret(admin),
		"database":            map[string]any{"internal": map[string]any{"password": engine.Secret(db)}},
		"expose": map[string]any{"type": "ingress",
			"tls": map[string]any{"enabled": true, "certSource": "secret", "secret": map[string]any{"secretName": HarborTLSSecret}},
			"ingress": map[string]any{"className": IngressClass, "hosts": map[string]any{"core": host},
				// NGINX Ingress Controller's own annotation (the chart's
				// defaults are ingress-nginx's): image layers have no
				// size limit.
				"annotations": map[string]any{"cert-manager.io/cluster-issuer": HarborIssuer, "nginx.org/client-max-body-size": "0"}}},
	}}, engine.DependsOn(issuer))
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
	ctx.Export("url", "https://"+host)
	ctx.Export("host", host)
	ctx.Export("admin_user", "admin")
	return nil
}
