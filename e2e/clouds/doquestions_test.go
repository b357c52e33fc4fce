package clouds

import (
	"strings"
	"testing"
)

// TestDOQuestionsInMARAsOrder: -p do checks (and asks) its questions in
// the order MARA's do provider asked them: the token, the host name, then
// the Kubernetes version, region, size and node count. Without a terminal
// the problems are listed in that order: a bad host name before MARA's
// refused DOKS version (the host name came last before).
func TestDOQuestionsInMARAsOrder(t *testing.T) {
	e := mara(t)
	e.extra = append(e.extra, "DIGITALOCEAN_TOKEN="+doToken)
	e.ok("config", "set", "kic-helm:fqdn", "nodots")
	e.ok("config", "set", "docean:region", "Not A Region")
	r := e.fails(3, "-p", "do", "validate")
	out := r.Stdout + r.Stderr
	fqdn, version, region := strings.Index(out, "kic-helm:fqdn is"), strings.Index(out, "docean:k8s_version is"), strings.Index(out, "docean:region is")
	if fqdn < 0 || version < 0 || region < 0 || !(fqdn < version && version < region) {
		t.Errorf("validate does not list the problems in MARA's order (kic-helm:fqdn, docean:k8s_version, docean:region):\n%s", out)
	}
}

// TestDORegistryTierKeys: the registry's subscription tier is read from
// MARA's own key (docean:container_registry_subscription_tier, which
// MARA's container-registry project read and runner used to ignore) and
// from the key MARA's example config holds (digitalocean:...); each is
// checked, and the two set to different tiers are refused naming both.
func TestDORegistryTierKeys(t *testing.T) {
	const maraKey, exampleKey = "docean:container_registry_subscription_tier", "digitalocean:container_registry_subscription_tier"
	e := doWorkspace(t, true)
	e.ok("config", "set", maraKey, "gold")
	r := e.fails(3, "-p", "do", "validate")
	if !strings.Contains(r.Stderr, maraKey+" is \"gold\"") {
		t.Errorf("validate does not refuse %s gold:\n%s", maraKey, r)
	}
	// MARA's example holds digitalocean:...: starter.
	e.ok("config", "set", maraKey, "basic")
	r = e.fails(3, "-p", "do", "up", "--yes")
	if !strings.Contains(r.Stderr, maraKey+` is "basic" but `+exampleKey+` is "starter"`) {
		t.Errorf("up does not refuse the two tier keys set to different tiers, naming both:\n%s", r)
	}
	if len(e.resources()) != 0 {
		t.Error("a refused config made resources")
	}
	e.ok("config", "rm", exampleKey)
	e.ok("-p", "do", "up", "--yes")
	regs := e.ofType("digitalocean:index/containerRegistry:ContainerRegistry")
	if len(regs) != 1 || regs[0].Inputs["subscriptionTierSlug"] != "basic" {
		t.Errorf("the registry %v does not have MARA's key's tier basic", regs)
	}
	e.ok("config", "set", exampleKey, "gold")
	if r := e.fails(3, "-p", "do", "validate"); !strings.Contains(r.Stderr, exampleKey+` is "gold"`) {
		t.Errorf("validate does not refuse %s gold:\n%s", exampleKey, r)
	}
}
