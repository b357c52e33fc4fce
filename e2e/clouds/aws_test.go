package clouds

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/runnerhq/runner/e2e/fakecloud"
)

// The answers the tests give on top of MARA's example config.
var siriusPasswords = map[string]string{
	"sirius:accounts_pwd":   "accounts-Pw-8c1f0e2b",
	"sirius:ledger_pwd":     "ledger-Pw-5a9d33e7",
	"sirius:demo_login_pwd": "demo-Pw-b71e4c05",
}

// maraAdminpass is prometheus:adminpass as MARA's example holds it, in
// plain text.
const maraAdminpass = "strongpass"

// maraProfileKey is the access key of the AWS profile MARA's example
// names (aws:profile myProfile): the eks kubeconfig's exec entry signs
// its tokens with it, never with the environment's keys.
const maraProfileKey = "AKIAMYPROFILE0000000"

// maraWorkspace makes a workspace whose stack dev has MARA's example
// config (testdata: a copy of ../shared/mara/Pulumi.stackname.yaml.example)
// and checks that up refuses its Kubernetes version 1.21, naming the line
// and the key first, before anything is written; then it gives the
// answers: the sirius passwords (secrets, through stdin), aws:region
// us-west-1 (the example's zones are there) and eks:k8s_version 1.34.
func maraWorkspace(t testing.TB) *env {
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
	creds := "[myProfile]\naws_access_key_id = " + maraProfileKey + "\naws_secret_access_key = my-profile-secret\n"
	if err := os.MkdirAll(filepath.Join(e.home, ".aws"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, ".aws", "credentials"), []byte(creds), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.fails(3, "-p", "aws", "up", "--yes")
	if !regexp.MustCompile(`(?m)\S*Pulumi\.dev\.yaml line \d+: eks:k8s_version is "1\.21"`).MatchString(r.Stderr) ||
		!strings.Contains(r.Stderr, "runner config set eks:k8s_version") {
		t.Errorf("up with MARA's eks:k8s_version 1.21 does not name the line and the key:\n%s", r.Stderr)
	}
	if len(e.stateFiles()) != 0 || len(e.resources()) != 0 {
		t.Error("up refused by validation wrote state or made resources")
	}
	e.ok("config", "set", "eks:k8s_version", "1.34")
	e.ok("config", "set", "aws:region", "us-west-1")
	for k, v := range siriusPasswords {
		e.setSecret(k, v)
	}
	return e
}

// TestAWSUp: up -p aws with MARA's example config deploys every project
// in the order of show, the outputs flow from project to project and into
// the fake cloud, and the eks hook writes a working kubeconfig.
func TestAWSUp(t *testing.T) {
	e := maraWorkspace(t)
	g := e.show("aws")
	r := e.ok("-p", "aws", "--json", "up", "--yes")
	evs := events(t, r)
	checkOrder(t, "up", g, evs, false)

	// MARA's plain prometheus:adminpass: a warning saying how to encrypt it,
	// and it still reaches the cluster as the Secret Grafana reads.
	var warned bool
	for _, ev := range evs {
		if ev.Type == "warning" && strings.Contains(ev.Message, "prometheus:adminpass is a secret but is stored in plain text") &&
			strings.Contains(ev.Message, "runner config set --secret prometheus:adminpass") {
			warned = true
		}
	}
	if !warned {
		t.Error("no warning that MARA's prometheus:adminpass is stored in plain text")
	}
	secret := e.kubeObject("kubernetes:core/v1:Secret", "prometheus", "prometheus-secrets")
	if data, _ := fakecloud.Unwrap(secret.Inputs["stringData"]).(map[string]any); data == nil || unwrapString(data["adminpass"]) != maraAdminpass {
		t.Errorf("the Secret prometheus-secrets does not hold MARA's adminpass: %v", secret.Inputs["stringData"])
	}

	// VPC ids into EKS.
	vpc := e.stackOutputs("vpc")
	subnets := append(stringList(vpc["public_subnet_ids"]), stringList(vpc["private_subnet_ids"])...)
	clusters := e.ofType("aws:eks/cluster:Cluster")
	if len(clusters) != 1 || len(subnets) != 4 {
		t.Fatalf("%d EKS clusters, %d subnets in vpc's outputs", len(clusters), len(subnets))
	}
	vpcConfig, _ := clusters[0].Inputs["vpcConfig"].(map[string]any)
	if got := stringList(vpcConfig["subnetIds"]); !sameSet(got, subnets) {
		t.Errorf("the EKS cluster's subnets %v are not vpc's %v", got, subnets)
	}
	for _, id := range subnets {
		if !slices.ContainsFunc(e.ofType("aws:ec2/subnet:Subnet"), func(s fakecloud.Resource) bool { return s.ID == id }) {
			t.Errorf("vpc's subnet %s is not in the fake cloud", id)
		}
	}

	// The eks kubeconfig reached the kubernetes provider: it configured
	// (its resources exist) and saw the EKS server (the load balancer's
	// host is in the cluster's region).
	if n := len(e.ofType("kubernetes:helm.sh/v3:Release")); n == 0 {
		t.Error("no Helm release in the fake cloud: the kubernetes provider was not configured with the eks kubeconfig")
	}
	ic := e.stackOutputs("ingress-controller")
	host, _ := ic["lb_ingress_hostname"].(string)
	if !strings.HasSuffix(host, ".elb.us-west-1.amazonaws.com") {
		t.Errorf("the ingress controller's load balancer host %q is not of the EKS cluster's region", host)
	}

	// The load balancer address into the application.
	ingress := e.kubeObject("kubernetes:networking.k8s.io/v1:Ingress", "sirius", "")
	spec, _ := ingress.Inputs["spec"].(map[string]any)
	rules, _ := spec["rules"].([]any)
	if len(rules) == 0 || rules[0].(map[string]any)["host"] != host {
		t.Errorf("sirius's Ingress rules %v do not use the load balancer host %q", rules, host)
	}
	if url := e.stackOutputs("sirius")["application_url"]; url != "http://"+host {
		t.Errorf("sirius's application_url = %v, want http://%s", url, host)
	}
	if out := e.ok("stack", "output", "--project", "sirius").Stdout; !strings.Contains(out, "application_url") {
		t.Errorf("stack output --project sirius has no application_url:\n%s", out)
	}

	e.checkKubeconfig(evs)
}

// TestAWSSecondUpNoChange: a second up plans no change and leaves every
// file of the fake cloud alone.
func TestAWSSecondUpNoChange(t *testing.T) {
	e := maraWorkspace(t)
	e.ok("-p", "aws", "up", "--yes")
	e.secondUpChangesNothing("aws")
	if r := e.ok("-p", "aws", "preview"); !strings.Contains(r.Stdout, "Summary") {
		t.Errorf("preview after up printed no summary:\n%s", r.Stdout)
	}
}

// TestAWSRefreshDestroy: refresh runs in dependency order and changes
// nothing, destroy runs in reverse order, and the fake cloud is empty.
func TestAWSRefreshDestroy(t *testing.T) {
	e := maraWorkspace(t)
	g := e.show("aws")
	e.ok("-p", "aws", "up", "--yes")
	refresh := events(t, e.ok("-p", "aws", "--json", "refresh", "--yes"))
	checkOrder(t, "refresh", g, refresh, false)
	if c := changes(t, refresh); len(c) != 0 {
		t.Errorf("refresh right after up found changes: %v", c)
	}
	destroy := events(t, e.ok("-p", "aws", "--json", "destroy", "--yes"))
	checkOrder(t, "destroy", g, destroy, true)
	e.cloudEmpty("after destroy")
}

// TestAWSDestroyECRWithImages: the ECR repository holds images, and
// destroy still deletes it (forceDelete), as MARA's issue #203 wanted.
func TestAWSDestroyECRWithImages(t *testing.T) {
	e := maraWorkspace(t)
	e.extra = append(e.extra, "FAKECLOUD_ECR_IMAGES=1")
	e.ok("-p", "aws", "up", "--yes")
	if len(e.ofType("aws:ecr/repository:Repository")) != 1 {
		t.Fatal("no ECR repository in the fake cloud after up")
	}
	e.ok("-p", "aws", "destroy", "--yes")
	e.cloudEmpty("after destroying a repository holding images")
}

// TestAWSPreview: preview on a fresh stack plans every project with its
// creates, none skipped, unknowns shown, and writes nothing.
func TestAWSPreview(t *testing.T) {
	e := maraWorkspace(t)
	g := e.show("aws")
	r := e.ok("-p", "aws", "--json", "preview")
	evs := events(t, r)
	checkOrder(t, "preview", g, evs, false)
	for _, ev := range evs {
		if ev.Type == "project-done" && ev.Counts["create"] == 0 {
			t.Errorf("preview plans no create in project %s: %v", ev.Project, ev.Counts)
		}
	}
	var unknown bool
	for _, ev := range evs {
		if ev.Type == "outputs" && ev.Project == "sirius" && ev.Outputs["application_url"] == "[unknown]" {
			unknown = true
		}
	}
	if !unknown {
		t.Errorf("preview's events do not show sirius's application_url as unknown")
	}
	plain := e.ok("-p", "aws", "preview")
	if !regexp.MustCompile(`application_url: \[unknown\]`).MatchString(plain.Stdout) {
		t.Errorf("preview does not show sirius's application_url as unknown:\n%s", plain.Stdout)
	}
	for _, p := range g.Projects {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(p.Name) + `\s+preview\s+succeeded\s+[1-9]`).MatchString(plain.Stdout) {
			t.Errorf("preview's summary does not list project %s with creates", p.Name)
		}
	}
	e.cloudEmpty("after preview")
	if files := e.stateFiles(); len(files) != 0 {
		t.Errorf("preview wrote state: %v", slices.Sorted(maps.Keys(files)))
	}
}

// TestAWSNATGatewayHasItsElasticIPAndDestroyEmptiesTheCloud: the vpc
// project gave its NAT gateway no Elastic IP (the fake returned the Eip's
// allocationId as null, and AWS refuses a public NAT gateway without
// one), and destroy -p aws never finished: the fake took the NAT
// gateway's Name tag (the cluster's name) for a reference to the cluster
// (hostile tester's regressions).
func TestAWSNATGatewayHasItsElasticIPAndDestroyEmptiesTheCloud(t *testing.T) {
	e := maraWorkspace(t)
	e.ok("-p", "aws", "up", "--yes")
	eip, nat := "<none>", "<none>"
	for _, r := range e.ofType("aws:ec2/eip:Eip") {
		eip = r.ID
	}
	for _, r := range e.ofType("aws:ec2/natGateway:NatGateway") {
		nat, _ = r.Inputs["allocationId"].(string)
	}
	if eip == "<none>" || nat != eip {
		t.Fatalf("the NAT gateway's allocationId is %q, want the Elastic IP %q", nat, eip)
	}
	e.ok("-p", "aws", "destroy", "--yes")
	e.cloudEmpty("after destroy")
	e.ok("-p", "aws", "destroy", "--yes") // twice: nothing to do, no error
}

// TestEKSHookRefusesAnAmbiguousKubeconfig: a hand-edited $KUBECONFIG
// with its clusters list written twice: the eks hook merged the cluster
// into the first list, which kubectl does not read, and exited 0; a
// second YAML document was silently dropped. Now up fails at the eks
// project naming the file and the lines, and leaves the file as it was
// (hostile tester's regressions).
func TestEKSHookRefusesAnAmbiguousKubeconfig(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"a key twice", "apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster: {server: 'https://a'}\nclusters: []\n",
			"line 6: the key clusters is written twice, on lines 3 and 6"},
		{"two documents", "apiVersion: v1\nkind: Config\n---\nmy: notes\n", "line 3: a second YAML document starts there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := maraWorkspace(t)
			e.kubeconfig = filepath.Join(e.home, "kubeconfig")
			if err := os.WriteFile(e.kubeconfig, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			r := e.fails(1, "-p", "aws", "up", "--yes")
			out := r.Stdout + r.Stderr
			if !strings.Contains(out, "the kubeconfig "+e.kubeconfig+" "+tc.want) || !strings.Contains(out, "it was left as it was") {
				t.Fatalf("up does not name %s and %q; %s", e.kubeconfig, tc.want, r)
			}
			if got, _ := os.ReadFile(e.kubeconfig); string(got) != tc.file {
				t.Errorf("the kubeconfig changed:\n%s", got)
			}
		})
	}
}
