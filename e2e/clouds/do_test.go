package clouds

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// doToken is the DigitalOcean API token the tests give.
const doToken = "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// mara copies MARA's example config into a new workspace as stack dev.
func mara(t testing.TB) *env {
	t.Helper()
	e := newEnv(t, "us-west-1")
	example, err := os.ReadFile(filepath.Join("testdata", "Pulumi.stackname.yaml.example"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(e.dir, "config", "pulumi", "Pulumi.dev.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, example, 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// doWorkspace is MARA's example config for -p do: up refuses MARA's DOKS
// version 1.22 naming the line, before anything is written; then the
// tests answer the version, the host name, the sirius passwords and the
// token (a secret, or DIGITALOCEAN_TOKEN when envToken).
func doWorkspace(t testing.TB, envToken bool) *env {
	t.Helper()
	e := mara(t)
	if envToken {
		e.extra = append(e.extra, "DIGITALOCEAN_TOKEN="+doToken)
	}
	r := e.fails(3, "-p", "do", "up", "--yes")
	if !regexp.MustCompile(`Pulumi\.dev\.yaml line \d+: docean:k8s_version is "1\.22\.12-do\.0"`).MatchString(r.Stderr) {
		t.Errorf("up with MARA's docean:k8s_version does not name the line and the key:\n%s", r.Stderr)
	}
	if len(e.stateFiles()) != 0 || len(e.resources()) != 0 {
		t.Error("up refused by validation wrote state or made resources")
	}
	e.ok("config", "set", "docean:k8s_version", "1.34.1-do.0")
	e.ok("config", "set", "kic-helm:fqdn", "mara.example.com")
	for k, v := range siriusPasswords {
		e.setSecret(k, v)
	}
	if !envToken {
		e.setSecret("digitalocean:token", doToken)
	}
	return e
}

// TestDOUpNoChangeDestroy: up -p do deploys every project in order, the
// registry's credentials reach the ingress namespace and the ingress
// controller pulls with them (checkIngressPullsWithCredentials), the DNS record
// points at the load balancer, the domk8s hook merges the DOKS
// kubeconfig; a second up plans nothing; destroy empties the fake cloud.
func TestDOUpNoChangeDestroy(t *testing.T) {
	e := doWorkspace(t, true)
	g := e.show("do")
	evs := events(t, e.ok("-p", "do", "--json", "up", "--yes"))
	checkOrder(t, "up", g, evs, false)

	if n := len(e.ofType("digitalocean:index/kubernetesCluster:KubernetesCluster")); n != 1 {
		t.Fatalf("%d DOKS clusters in the fake cloud, want 1", n)
	}
	// A registry's name is unique across all of DigitalOcean: the plugin
	// names it, as MARA let it (a fixed mara-dev could be someone else's).
	regs := e.ofType("digitalocean:index/containerRegistry:ContainerRegistry")
	if len(regs) != 1 || !regexp.MustCompile(`^registry-[0-9a-f]{7}$`).MatchString(fmt.Sprint(regs[0].Inputs["name"])) {
		t.Errorf("the registries %v are not one named by the plugin (registry-<7 hex>)", regs)
	}
	e.checkIngressPullsWithCredentials()
	records := e.ofType("digitalocean:index/dnsRecord:DnsRecord")
	ip := e.stackOutputs("ingress-controller")["lb_ingress_ip"]
	if len(records) != 1 || records[0].Inputs["value"] != ip || records[0].Inputs["domain"] != "example.com" || records[0].Inputs["name"] != "mara" || ip == "" {
		t.Errorf("the DNS records %v do not point mara.example.com at the load balancer %v", records, ip)
	}
	e.checkMergedKubeconfig(evs, "domk8s", "do-sfo3-mara-dev")

	e.secondUpChangesNothing("do")
	destroy := events(t, e.ok("-p", "do", "--json", "destroy", "--yes"))
	checkOrder(t, "destroy", g, destroy, true)
	e.cloudEmpty("after destroy")
}

// checkMergedKubeconfig checks the kubeconfig project's hook merged into
// $KUBECONFIG: mode 0600, YAML, the context (current) with its cluster at
// the cluster's endpoint.
func (e *env) checkMergedKubeconfig(evs []event, project, context string) {
	t := e.t
	t.Helper()
	var logged string
	for _, ev := range evs {
		if m := hookLog.FindStringSubmatch(strings.TrimSpace(ev.Message)); ev.Type == "log" && ev.Project == project && m != nil {
			logged = m[1]
		}
	}
	if logged != context {
		t.Errorf("the %s hook reported context %q, want %q", project, logged, context)
	}
	info, err := os.Stat(e.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("the kubeconfig's mode is %v, want 0600", info.Mode().Perm())
	}
	data, _ := os.ReadFile(e.kubeconfig)
	var k kubeconfigFile
	if err := yaml.Unmarshal(data, &k); err != nil {
		t.Fatalf("the kubeconfig is not YAML: %v\n%s", err, data)
	}
	if k.CurrentContext != context {
		t.Errorf("current-context %q, want %q", k.CurrentContext, context)
	}
	endpoint := e.stackOutputs(project)["endpoint"]
	var server string
	for _, c := range k.Contexts {
		for _, cl := range k.Clusters {
			if c.Name == context && cl.Name == c.Context.Cluster {
				server = cl.Cluster.Server
			}
		}
	}
	if server == "" || (endpoint != nil && server != endpoint) {
		t.Errorf("the context %s's cluster has server %q, want %v:\n%s", context, server, endpoint, data)
	}
}

// TestDOValidateListsEveryMissingKey: validate -p do without a terminal
// and without a token lists every missing key with its command, exit 3,
// and writes nothing.
func TestDOValidateListsEveryMissingKey(t *testing.T) {
	e := newEnv(t, "us-west-1")
	r := e.fails(3, "-p", "do", "validate")
	for _, want := range []string{"config set --secret digitalocean:token <value>", "config set kic-helm:fqdn <value>",
		"config set --secret sirius:accounts_pwd <value>", "sirius:ledger_pwd", "prometheus:adminpass"} {
		if !strings.Contains(r.Stdout+r.Stderr, want) {
			t.Errorf("validate does not name %q:\n%s", want, r)
		}
	}
	e.extra = append(e.extra, "DIGITALOCEAN_TOKEN="+doToken)
	if r := e.fails(3, "-p", "do", "validate"); strings.Contains(r.Stdout+r.Stderr, "config set --secret digitalocean:token") {
		t.Errorf("validate asks for digitalocean:token although DIGITALOCEAN_TOKEN is set:\n%s", r)
	}
	// A token no HTTP header can carry is refused, naming the variable but
	// not showing the value.
	e.extra = []string{"DIGITALOCEAN_TOKEN=bad token with spaces 0123456789"}
	if r := e.fails(3, "-p", "do", "validate"); !strings.Contains(r.Stderr, "the environment variable DIGITALOCEAN_TOKEN, which stands for digitalocean:token, is not accepted: it must be") ||
		strings.Contains(r.Stdout+r.Stderr, "bad token") {
		t.Errorf("validate does not refuse a malformed DIGITALOCEAN_TOKEN without showing it:\n%s", r)
	}
}

// TestSecretsDoNotLeakDO: the token (a secret in the stack config) and
// the passwords are in plain text nowhere runner writes, the merged
// kubeconfig included; the token never reaches the kubernetes plugin.
func TestSecretsDoNotLeakDO(t *testing.T) {
	e := doWorkspace(t, false)
	e.ok("-p", "do", "up", "--yes")
	e.ok("-p", "do", "--json", "up", "--yes")
	e.ok("stack", "output")
	secrets := append(slices.Collect(maps.Values(siriusPasswords)), doToken)
	e.checkNoLeak("after up", "do", secrets)
	e.ok("-p", "do", "--json", "destroy", "--yes")
	e.checkNoLeak("after destroy", "do", secrets)
}
