package clouds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kubeToken is the credential of the user of the test's own kubeconfig.
const kubeToken = "kube-Token-3f9a1c7e52d84b06"

// grafanaPassword is prometheus:adminpass for -p kubeconfig.
const grafanaPassword = "grafana-Pw-6d2e90ab"

// ownKubeconfig is a kubeconfig with two contexts: staging (current, a
// local cluster) and prod, whose cluster's server is an EKS name of
// eu-west-2 (the fake kubernetes provider gives load balancers the region
// of an EKS server, so their host shows which context was used).
const ownKubeconfig = `apiVersion: v1
kind: Config
current-context: staging
clusters:
- name: staging-cluster
  cluster: {server: "https://127.0.0.1:6443"}
- name: prod-cluster
  cluster: {server: "https://0123456789ABCDEF0123456789ABCDEF.gr7.eu-west-2.eks.amazonaws.com"}
contexts:
- name: staging
  context: {cluster: staging-cluster, user: staging-user}
- name: prod
  context: {cluster: prod-cluster, user: prod-user}
users:
- name: staging-user
  user: {token: staging-token-not-used}
- name: prod-user
  user: {token: ` + kubeToken + `}
`

// kubeconfigWorkspace makes a workspace for -p kubeconfig whose
// kubernetes:kubeconfig is a file of the test's own holding kubeconfig
// (its path returned), context context, with the secrets answered.
func kubeconfigWorkspace(t *testing.T, kubeconfig, context string) (*env, string) {
	t.Helper()
	e := newEnv(t, "us-east-1")
	e.aws = nil // -p kubeconfig needs no AWS
	file := filepath.Join(e.home, ".kube", "own.yaml")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	e.ok("config", "set", "kubernetes:kubeconfig", file)
	e.ok("config", "set", "kubernetes:context_name", context)
	e.setSecret("prometheus:adminpass", grafanaPassword)
	for k, v := range siriusPasswords {
		e.setSecret(k, v)
	}
	return e, file
}

// TestKubeconfigUpDestroy: -p kubeconfig deploys to the chosen context of
// the test's kubeconfig (not its current one) in the order of show; a
// second up changes nothing; destroy empties the fake cloud.
func TestKubeconfigUpDestroy(t *testing.T) {
	e, _ := kubeconfigWorkspace(t, ownKubeconfig, "prod")
	g := e.show("kubeconfig")
	up := events(t, e.ok("-p", "kubeconfig", "--json", "up", "--yes"))
	checkOrder(t, "up", g, up, false)
	if n := len(e.resources()); n == 0 {
		t.Fatal("up made nothing in the fake cloud")
	}
	for _, r := range e.resources() {
		if r.Package != "kubernetes" {
			t.Errorf("-p kubeconfig made a %s resource %s", r.Package, r.Type)
		}
	}
	host, _ := e.stackOutputs("ingress-controller")["lb_ingress_hostname"].(string)
	if !strings.HasSuffix(host, ".elb.eu-west-2.amazonaws.com") {
		t.Errorf("the load balancer host %q is not of the prod context's cluster", host)
	}
	if name := e.stackOutputs("kubeconfig")["cluster_name"]; name != "prod-cluster" {
		t.Errorf("kubeconfig's cluster_name = %v, want the prod context's cluster", name)
	}
	if url := e.stackOutputs("sirius")["application_url"]; url != "http://"+host {
		t.Errorf("sirius's application_url = %v, want http://%s", url, host)
	}

	e.secondUpChangesNothing("kubeconfig")

	destroy := events(t, e.ok("-p", "kubeconfig", "--json", "destroy", "--yes"))
	checkOrder(t, "destroy", g, destroy, true)
	e.cloudEmpty("after destroy")
}

// TestKubeconfigChecksTheChosenContextOnly: one context naming a cluster
// that `kubectl config delete-cluster` removed made -p kubeconfig refuse
// the whole file. Now, as with kubectl, only the chosen context is
// checked: another dangling context is fine, and choosing the dangling one
// is refused naming its line. Without a terminal, a kubeconfig that does
// not exist is named as the problem; the run said only that
// kubernetes:context_name and kubernetes:cluster_name were missing.
func TestKubeconfigChecksTheChosenContextOnly(t *testing.T) {
	dangling := strings.Replace(ownKubeconfig, "contexts:\n", "contexts:\n- name: old\n  context: {cluster: deleted-cluster, user: prod-user}\n", 1)
	e, _ := kubeconfigWorkspace(t, dangling, "prod")
	e.ok("-p", "kubeconfig", "validate")
	e.ok("-p", "kubeconfig", "preview")
	e.ok("config", "set", "kubernetes:context_name", "old")
	r := e.fails(3, "-p", "kubeconfig", "validate")
	if !strings.Contains(r.Stderr, `line 10: the context old names the cluster "deleted-cluster", which the file does not define`) {
		t.Errorf("choosing the dangling context is not refused naming it and its line:\n%s", r)
	}

	fresh := newEnv(t, "us-east-1")
	fresh.aws = nil
	fresh.setSecret("prometheus:adminpass", grafanaPassword)
	for k, v := range siriusPasswords {
		fresh.setSecret(k, v)
	}
	r = fresh.fails(3, "-p", "kubeconfig", "validate")
	for _, want := range []string{"kubernetes:kubeconfig is not set, and its default", "the kubeconfig file " + fresh.kubeconfig + " does not exist",
		"runner config set kubernetes:kubeconfig <value>"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("validate without a kubeconfig does not say %q:\n%s", want, r)
		}
	}
}
