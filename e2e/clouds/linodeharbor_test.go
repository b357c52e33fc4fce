package clouds

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/runnerhq/runner/e2e/fakecloud"
)

// at returns the value at path in v, each level unwrapped of secrets.
func at(v any, path ...string) any {
	for _, k := range path {
		m, _ := fakecloud.Unwrap(v).(map[string]any)
		v = m[k]
	}
	return fakecloud.Unwrap(v)
}

// TestLinodeAsksFQDNAndSOAEmail: as MARA, -p linode asks kic-helm:fqdn
// and linode:soa_email; without a terminal a missing or malformed answer
// fails validation naming the key (exit 3) and up makes nothing.
func TestLinodeAsksFQDNAndSOAEmail(t *testing.T) {
	e := linodeWorkspace(t, true)
	e.ok("-p", "linode", "validate")
	for _, tt := range []struct{ key, bad, want, good string }{
		{"kic-helm:fqdn", "mara", `kic-helm:fqdn is "mara", which is not accepted: it must be a fully qualified domain name`, linodeFQDN},
		{"linode:soa_email", "admin.example.org", `linode:soa_email is "admin.example.org", which is not accepted: it must be an email address`, linodeEmail},
	} {
		e.ok("config", "set", tt.key, tt.bad)
		if r := e.fails(3, "-p", "linode", "validate"); !strings.Contains(r.Stdout+r.Stderr, tt.want) {
			t.Errorf("validate with %s=%q does not say %q:\n%s", tt.key, tt.bad, tt.want, r)
		}
		e.ok("config", "rm", tt.key)
		r := e.fails(3, "-p", "linode", "up", "--yes")
		if want := "config set " + tt.key + " <value>"; !strings.Contains(r.Stdout+r.Stderr, want) {
			t.Errorf("up without %s does not name %q:\n%s", tt.key, want, r)
		}
		if len(e.resources()) != 0 {
			t.Fatalf("up without %s made resources", tt.key)
		}
		e.ok("config", "set", tt.key, tt.good)
	}
}

// TestLinodeHarborHostMatchesTLS: Harbor is served at
// harbor.<kic-helm:fqdn>, with TLS on and so an https externalURL, its
// certificate from cert-manager's Let's Encrypt ClusterIssuer whose
// account is linode:soa_email; the registry credentials name that host;
// up says which DNS records to make, runner making none on Linode.
func TestLinodeHarborHostMatchesTLS(t *testing.T) {
	e := linodeWorkspace(t, true)
	up := e.ok("-p", "linode", "up", "--yes")
	notice := regexp.MustCompile(`runner makes no DNS record on Linode: point mara\.example\.org and harbor\.mara\.example\.org at the ingress controller's load balancer \d+\.\d+\.\d+\.\d+;`)
	if !notice.MatchString(up.Stdout) {
		t.Errorf("up does not name the DNS records to make and the load balancer's address:\n%s", up)
	}
	host := "harbor." + linodeFQDN
	var values any
	for _, r := range e.ofType("kubernetes:helm.sh/v3:Release") {
		if r.Inputs["name"] == "harbor" {
			values = r.Inputs["values"]
		}
	}
	for _, c := range []struct {
		path []string
		want any
	}{
		{[]string{"externalURL"}, "https://" + host},
		{[]string{"expose", "tls", "enabled"}, true},
		{[]string{"expose", "tls", "certSource"}, "secret"},
		{[]string{"expose", "tls", "secret", "secretName"}, "harbor-tls"},
		{[]string{"expose", "ingress", "hosts", "core"}, host},
		{[]string{"expose", "ingress", "annotations", "cert-manager.io/cluster-issuer"}, "harbor-letsencrypt"},
	} {
		if got := at(values, c.path...); got != c.want {
			t.Errorf("Harbor's value %s is %v, want %v", strings.Join(c.path, "."), got, c.want)
		}
	}
	issuers := e.ofType("kubernetes:cert-manager.io/v1:ClusterIssuer")
	if len(issuers) != 1 {
		t.Fatalf("%d ClusterIssuers in the fake cloud, want 1", len(issuers))
	}
	if got := at(issuers[0].Inputs, "spec", "acme", "email"); got != linodeEmail {
		t.Errorf("the ClusterIssuer's ACME email is %v, want linode:soa_email %s", got, linodeEmail)
	}
	if got := at(issuers[0].Inputs, "metadata", "name"); got != "harbor-letsencrypt" {
		t.Errorf("the ClusterIssuer is named %v, want harbor-letsencrypt", got)
	}
	sec := e.kubeObject("kubernetes:core/v1:Secret", "nginx-ingress", "registry-credentials")
	var docker struct{ Auths map[string]any }
	if err := json.Unmarshal([]byte(unwrapString(at(sec.Inputs, "stringData", ".dockerconfigjson"))), &docker); err != nil {
		t.Fatalf("the registry credentials are not Docker's JSON: %v", err)
	}
	if _, ok := docker.Auths[host]; !ok || len(docker.Auths) != 1 {
		t.Errorf("the registry credentials are for %v, want %s only", docker.Auths, host)
	}
	if out := e.stackOutputs("harbor"); out["url"] != "https://"+host {
		t.Errorf("harbor's url output is %v, want https://%s", out["url"], host)
	}
}

// TestLKEHighAvailabilityByDefault: as MARA (its runner's "[Y]" and its
// example config), the LKE control plane is highly available unless
// linode:k8s_ha says false.
func TestLKEHighAvailabilityByDefault(t *testing.T) {
	e := linodeWorkspace(t, true)
	e.ok("config", "rm", "linode:k8s_ha")
	e.ok("-p", "linode", "up", "--yes", "--target", "lke")
	clusters := e.ofType("linode:index/lkeCluster:LkeCluster")
	if len(clusters) != 1 {
		t.Fatalf("%d LKE clusters in the fake cloud, want 1", len(clusters))
	}
	if got := at(clusters[0].Inputs, "controlPlane", "highAvailability"); got != true {
		t.Errorf("without linode:k8s_ha the LKE control plane's highAvailability is %v, want true (MARA's default)", got)
	}
	e.ok("config", "set", "linode:k8s_ha", "false")
	e.ok("-p", "linode", "up", "--yes", "--target", "lke")
	if got := at(e.ofType("linode:index/lkeCluster:LkeCluster")[0].Inputs, "controlPlane", "highAvailability"); got != false {
		t.Errorf("with linode:k8s_ha false the control plane's highAvailability is %v", got)
	}
}
