package clouds

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const doRegistryType = "digitalocean:index/containerRegistry:ContainerRegistry"

// placeDORegistry puts a container registry made outside runner (in the
// control panel, say) into the fake DigitalOcean account, where the fake
// plugin keeps its own.
func (e *env) placeDORegistry(name, region, tier string) {
	e.t.Helper()
	dir := filepath.Join(e.cloud, "digitalocean")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	rec := map[string]any{"package": "digitalocean", "type": doRegistryType, "id": name, "urn": "",
		"inputs": map[string]any{"name": name, "region": region, "subscriptionTierSlug": tier},
		"outputs": map[string]any{"name": name, "region": region, "subscriptionTierSlug": tier,
			"endpoint": "registry.digitalocean.com/" + name, "serverUrl": "registry.digitalocean.com",
			"createdAt": "2026-01-02T03:04:05Z", "storageUsageBytes": 0}}
	data, err := json.Marshal(rec)
	if err != nil {
		e.t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(doRegistryType + "\x00" + name))
	if err := os.WriteFile(filepath.Join(dir, hex.EncodeToString(sum[:12])+".json"), data, 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// TestDOAccountRegistryIsReused: a DigitalOcean account has one container
// registry (the fake refuses a second, as DigitalOcean does). When the
// account already has one that this stack did not make, up -p do uses it
// (as MARA did after `doctl registry get`): it makes no registry, the
// registry credentials are of that registry, a second up changes nothing,
// and destroy leaves the registry. Before, up tried to make a second one.
func TestDOAccountRegistryIsReused(t *testing.T) {
	e := doWorkspace(t, true)
	e.placeDORegistry("company-registry", "nyc3", "basic")
	r := e.ok("-p", "do", "up", "--yes")
	if !strings.Contains(r.Stdout+r.Stderr, "using the account's container registry company-registry (region nyc3), which this stack did not make") {
		t.Errorf("up does not say it uses the account's registry:\n%s", r)
	}
	regs := e.ofType(doRegistryType)
	if len(regs) != 1 || regs[0].ID != "company-registry" {
		t.Fatalf("the account's registries are %v, want only company-registry", regs)
	}
	creds := e.ofType("digitalocean:index/containerRegistryDockerCredentials:ContainerRegistryDockerCredentials")
	if len(creds) != 1 || creds[0].Inputs["registryName"] != "company-registry" {
		t.Errorf("the registry credentials %v are not company-registry's", creds)
	}
	outs := e.stackOutputs("container-registry")
	if outs["registry_name"] != "company-registry" || outs["endpoint"] != "registry.digitalocean.com/company-registry" || outs["registry_created"] != false {
		t.Errorf("container-registry's outputs are %v, want company-registry's, not created by the stack", outs)
	}
	e.checkIngressPullsWithCredentials()
	e.secondUpChangesNothing("do")
	e.ok("-p", "do", "destroy", "--yes")
	left := e.resources()
	if len(left) != 1 || left[0].ID != "company-registry" {
		t.Errorf("after destroy the fake cloud holds %v, want only the account's own registry", left)
	}
}

// TestDOOwnRegistryGoneAccountHasAnother: the stack made its registry;
// then it was deleted by hand and the account got another. up --refresh
// finds the stack's registry gone and uses the account's (DigitalOcean,
// as the fake, refuses a second registry), its credentials following.
func TestDOOwnRegistryGoneAccountHasAnother(t *testing.T) {
	e := doWorkspace(t, true)
	e.ok("-p", "do", "up", "--yes")
	if outs := e.stackOutputs("container-registry"); outs["registry_created"] != true {
		t.Errorf("container-registry's outputs are %v, want a registry the stack made", outs)
	}
	if n := e.removeFromCloud(doRegistryType, ""); n != 1 {
		t.Fatalf("%d registries after up, want 1", n)
	}
	e.placeDORegistry("company-registry", "nyc3", "basic")
	r := e.ok("-p", "do", "up", "--yes", "--refresh")
	if !strings.Contains(r.Stdout+r.Stderr, "using the account's container registry company-registry") {
		t.Errorf("up --refresh does not use the account's registry:\n%s", r)
	}
	if regs := e.ofType(doRegistryType); len(regs) != 1 || regs[0].ID != "company-registry" {
		t.Errorf("the account's registries are %v, want only company-registry", regs)
	}
	creds := e.ofType("digitalocean:index/containerRegistryDockerCredentials:ContainerRegistryDockerCredentials")
	if len(creds) != 1 || creds[0].Inputs["registryName"] != "company-registry" {
		t.Errorf("the registry credentials %v are not company-registry's", creds)
	}
}

// checkIngressPullsWithCredentials: the ingress controller's service
// account pulls its image with the registry credentials' Secret (Helm
// value controller.serviceAccount.imagePullSecretName), in the namespace
// of the release, as MARA's did; before, the Secret had no consumer.
func (e *env) checkIngressPullsWithCredentials() {
	e.t.Helper()
	sec := e.kubeObject("kubernetes:core/v1:Secret", "nginx-ingress", "registry-credentials")
	if sec.Inputs["type"] != "kubernetes.io/dockerconfigjson" {
		e.t.Errorf("the registry credentials Secret has type %v", sec.Inputs["type"])
	}
	var pulls []any
	for _, r := range e.ofType("kubernetes:helm.sh/v3:Release") {
		if r.Inputs["name"] != "kic" {
			continue
		}
		values, _ := r.Inputs["values"].(map[string]any)
		controller, _ := values["controller"].(map[string]any)
		account, _ := controller["serviceAccount"].(map[string]any)
		if r.Inputs["namespace"] != "nginx-ingress" {
			e.t.Errorf("the ingress controller's release is in namespace %v, not the Secret's", r.Inputs["namespace"])
		}
		pulls = append(pulls, account["imagePullSecretName"])
	}
	if len(pulls) != 1 || pulls[0] != "registry-credentials" {
		e.t.Errorf("the ingress controller's release pulls with %v, want the Secret registry-credentials", pulls)
	}
}
