package clouds

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/runnerhq/runner/e2e/fakecloud"
)

// linodeToken is the Linode API token the tests give.
const linodeToken = "linode0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab"

// harborPasswords are the three Harbor secrets.
var harborPasswords = map[string]string{
	"linode:harbor_password":           "harbor-Admin-Pw-3e1a",
	"linode:harbor_db_password":        "harbor-Db-Pw-77c2",
	"linode:harbor_sudo_user_password": "harbor-Sudo-Pw-9d04",
}

// The answers to MARA's two linode questions that its example config
// leaves out: the application's host name and the registry domain's
// email.
const (
	linodeFQDN  = "mara.example.org"
	linodeEmail = "admin@example.org"
)

// linodeWorkspace is MARA's example config for -p linode: up refuses
// MARA's LKE version 1.23 naming the line; then the tests answer it, the
// host name and email, the passwords and the token (a secret, or
// LINODE_TOKEN when envToken).
func linodeWorkspace(t testing.TB, envToken bool) *env {
	t.Helper()
	e := mara(t)
	if envToken {
		e.extra = append(e.extra, "LINODE_TOKEN="+linodeToken)
	}
	r := e.fails(3, "-p", "linode", "up", "--yes")
	if !regexp.MustCompile(`Pulumi\.dev\.yaml line \d+: linode:k8s_version is "1\.23"`).MatchString(r.Stderr) {
		t.Errorf("up with MARA's linode:k8s_version does not name the line and the key:\n%s", r.Stderr)
	}
	if len(e.stateFiles()) != 0 || len(e.resources()) != 0 {
		t.Error("up refused by validation wrote state or made resources")
	}
	e.ok("config", "set", "linode:k8s_version", "1.34")
	e.ok("config", "set", "kic-helm:fqdn", linodeFQDN)
	e.ok("config", "set", "linode:soa_email", linodeEmail)
	for k, v := range siriusPasswords {
		e.setSecret(k, v)
	}
	for k, v := range harborPasswords {
		e.setSecret(k, v)
	}
	if !envToken {
		e.setSecret("linode:token", linodeToken)
	}
	return e
}

// TestLinodeUpNoChangeDestroy: up -p linode deploys every project in
// order, Harbor gets its passwords, the registry credentials reach the
// ingress namespace, the lke hook merges LKE's decoded kubeconfig; a
// second up plans nothing; destroy empties the fake cloud.
func TestLinodeUpNoChangeDestroy(t *testing.T) {
	e := linodeWorkspace(t, true)
	g := e.show("linode")
	evs := events(t, e.ok("-p", "linode", "--json", "up", "--yes"))
	checkOrder(t, "up", g, evs, false)
	if n := len(e.ofType("linode:index/lkeCluster:LkeCluster")); n != 1 {
		t.Fatalf("%d LKE clusters in the fake cloud, want 1", n)
	}
	if sec := e.kubeObject("kubernetes:core/v1:Secret", "nginx-ingress", "registry-credentials"); sec.Inputs["type"] != "kubernetes.io/dockerconfigjson" {
		t.Errorf("the registry credentials Secret has type %v", sec.Inputs["type"])
	}
	if !slices.ContainsFunc(e.ofType("kubernetes:helm.sh/v3:Release"), func(r fakecloud.Resource) bool {
		return r.Inputs["name"] == "harbor" && r.Inputs["namespace"] == "harbor"
	}) {
		t.Error("no Helm release harbor/harbor in the fake cloud")
	}
	e.checkHarborConfiguration()
	var ctx string
	for _, ev := range evs {
		if m := hookLog.FindStringSubmatch(strings.TrimSpace(ev.Message)); ev.Type == "log" && ev.Project == "lke" && m != nil {
			ctx = m[1]
		}
	}
	if !regexp.MustCompile(`^lke\d+-ctx$`).MatchString(ctx) {
		t.Errorf("the lke hook reported context %q, want lke<id>-ctx", ctx)
	}
	e.checkMergedKubeconfig(evs, "lke", ctx)

	e.secondUpChangesNothing("linode")
	destroy := events(t, e.ok("-p", "linode", "--json", "destroy", "--yes"))
	checkOrder(t, "destroy", g, destroy, true)
	e.cloudEmpty("after destroy")
}

// TestLinodeValidateListsEveryMissingKey: validate -p linode without a
// terminal and without a token lists every missing key, exit 3, MARA's
// kic-helm:fqdn and linode:soa_email included.
func TestLinodeValidateListsEveryMissingKey(t *testing.T) {
	e := newEnv(t, "us-west-1")
	r := e.fails(3, "-p", "linode", "validate")
	for _, want := range []string{"config set --secret linode:token <value>", "config set --secret linode:harbor_password <value>",
		"config set --secret linode:harbor_db_password <value>", "config set --secret linode:harbor_sudo_user_password <value>",
		"config set kic-helm:fqdn <value>", "config set linode:soa_email <value>"} {
		if !strings.Contains(r.Stdout+r.Stderr, want) {
			t.Errorf("validate does not name %q:\n%s", want, r)
		}
	}
}

// TestSecretsDoNotLeakLinode: the token and the passwords are in plain
// text nowhere runner writes, the merged kubeconfig included.
func TestSecretsDoNotLeakLinode(t *testing.T) {
	e := linodeWorkspace(t, false)
	e.ok("-p", "linode", "--json", "up", "--yes")
	e.ok("stack", "output")
	secrets := append(slices.Collect(maps.Values(siriusPasswords)), linodeToken)
	secrets = append(secrets, slices.Collect(maps.Values(harborPasswords))...)
	e.cloudHolds(slices.Collect(maps.Values(harborPasswords)))
	e.checkNoLeak("after up", "linode", secrets)
	e.ok("-p", "linode", "--json", "destroy", "--yes")
	e.checkNoLeak("after destroy", "linode", secrets)
}

// checkHarborConfiguration checks MARA's harbor-configuration: a Job in
// Harbor's namespace that waits for Harbor's health and makes the project
// library private through Harbor's API, with the admin password from a
// Secret of its own (never in the Job itself).
func (e *env) checkHarborConfiguration() {
	t := e.t
	t.Helper()
	job := e.kubeObject("kubernetes:batch/v1:Job", "harbor", "harbor-configuration")
	data, _ := json.Marshal(job.Inputs)
	for _, want := range []string{`curlimages/curl:8.11.1`, `$api/health`, `$api/projects/library/metadatas/public`,
		`{"name":"HARBOR_API","value":"http://harbor-core.harbor.svc/api/v2.0"}`, `{\"public\":\"false\"}`,
		`"secretKeyRef":{"key":"password","name":"harbor-configuration"}`, `"restartPolicy":"Never"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the harbor-configuration Job does not hold %s:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), harborPasswords["linode:harbor_password"]) {
		t.Error("the harbor-configuration Job holds the admin password")
	}
	sec := e.kubeObject("kubernetes:core/v1:Secret", "harbor", "harbor-configuration")
	if d, _ := json.Marshal(sec.Inputs["stringData"]); !strings.Contains(string(d), harborPasswords["linode:harbor_password"]) {
		t.Errorf("the harbor-configuration Secret does not hold the admin password: %s", d)
	}
}
