package cluster

import (
	"strconv"
	"strings"

	"github.com/runnerhq/runner/engine"
)

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
	src, err := certmgrChart.resolve(ctx)
	if err != nil {
		return err
	}
	p := Provider(ctx)
	ns := namespace(ctx, p, "cert-manager", nil)
	rel := declareRelease(ctx, p, src, release{name: "certmgr", namespace: nameOf(ns), values: crdValues(src.version)})
	ctx.Export(NamespaceOutput, nameOf(ns))
	ctx.Export(CRDsInstalledOutput, rel.Output("status").Apply(func(any) (any, error) { return true, nil }))
	return nil
}

// crdValues are the values that install cert-manager's CRDs with the chart
// of version: installCRDs before 1.15, crds.enabled since (charts 1.15 to
// 1.18 refuse both at once).
func crdValues(version string) map[string]any {
	major, minor, ok := minorOf(version)
	if ok && (major < 1 || major == 1 && minor < 15) {
		return map[string]any{"installCRDs": true}
	}
	return map[string]any{"crds": map[string]any{"enabled": true}}
}

// minorOf reads the major and minor numbers of a version such as v1.10.0.
func minorOf(version string) (major, minor int, ok bool) {
	parts := strings.SplitN(strings.TrimPrefix(version, "v"), ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	return major, minor, err1 == nil && err2 == nil
}
