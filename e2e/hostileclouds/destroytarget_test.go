package hostileclouds

import (
	"strings"
	"testing"
)

// destroy --target eks deleted the EKS cluster under every Kubernetes
// project, still deployed on it (exit 0). Now it is refused, naming them,
// and the cluster stays; with them targeted too it runs.
func TestDestroyTargetEKSUnderDeployedKubernetesProjects(t *testing.T) {
	e := newEnv(t)
	e.maraStack()
	e.ok("-p", "aws", "up", "--yes")
	before := len(e.list())
	r := e.run("", "-p", "aws", "destroy", "--yes", "--target", "eks")
	if r.Code == 0 || !strings.Contains(r.Stderr, "destroy --target eks would leave these projects") ||
		!strings.Contains(r.Stderr, "kubeconfig") || !strings.Contains(r.Stderr, "sirius") {
		t.Fatalf("destroy --target eks: exit %d\n%s", r.Code, r.Stderr)
	}
	if after := len(e.list()); after != before {
		t.Fatalf("the refused destroy deleted %d resources", before-after)
	}
	args := []string{"-p", "aws", "destroy", "--yes", "--target", "eks"}
	for _, p := range []string{"kubeconfig", "secrets", "ingress-controller-namespace", "ingress-controller", "logstore",
		"logagent", "certmgr", "prometheus", "observability", "sirius"} {
		args = append(args, "--target", p)
	}
	e.ok(args...)
	for _, res := range e.list() {
		if res.Package == "kubernetes" || strings.HasPrefix(res.Type, "aws:eks/") {
			t.Errorf("left after destroying eks and its dependents: %s %s", res.Type, res.ID)
		}
	}
}
