package cluster

import "github.com/runnerhq/runner/engine"

// The cert-manager project and outputs.
const (
	CertmgrProject = "certmgr"
	// CRDsInstalledOutput says cert-manager's CRDs (Certificate, Issuer,
	// ClusterIssuer) are installed: true once the release is deployed.
	CRDsInstalledOutput = "crds_installed"
)

// certmgrChart is cert-manager's chart; its repository keys carry the
// certmgr_ prefix in MARA's config.
var certmgrChart = chart{ns: "certmgr", repoKey: "certmgr_helm_repo_url",
	name: "cert-manager", version: "v1.19.0", repo: "https://charts.jetstack.io", timeout: 300}

// Certmgr deploys cert-manager by Helm into namespace cert-manager, with
// its CRDs (installCRDs for charts before 1.15, crds.enabled after).
// Outputs: namespace, crds_installed.
func Certmgr(ctx *engine.Context) error {
	p := Provider(ctx)
	ns := namespace(ctx, p, "cert-manager", nil)
	rel, err := helmRelease(ctx, p, certmgrChart, release{name: "certmgr", namespace: nameOf(ns), values: map[string]any{
		"installCRDs": true,
		"crds":        map[string]any{"enabled": true},
	}})
	if err != nil {
		return err
	}
	ctx.Export(NamespaceOutput, nameOf(ns))
	ctx.Export(CRDsInstalledOutput, rel.Output("status").Apply(func(any) (any, error) { return true, nil }))
	return nil
}
