package clouds

import (
	"strings"
	"testing"
)

// TestValidationListsEveryProblem: without a terminal, one refused up
// names every problem of the stack config at once: values not accepted,
// missing secrets, and the problems of the config as a whole (min > max
// nodes, kic:image_origin source), which were listed only once the
// others were fixed (a second, third run to learn them). Exit 3, nothing
// changed. (Hostile tester's regression.)
func TestValidationListsEveryProblem(t *testing.T) {
	e := maraWorkspace(t)
	e.ok("config", "set", "eks:min_size", "20")
	e.ok("config", "set", "vpc:azs", "us-west-1a")
	e.ok("config", "set", "kic:image_origin", "source")
	e.ok("config", "rm", "sirius:ledger_pwd")
	refused(t, e, "aws", []string{
		`line 114: vpc:azs is "us-west-1a"`,
		"eks:min_size (20) is larger than eks:max_size (12)",
		"kic:image_origin is source",
		"config set --secret sirius:ledger_pwd",
	})
}

// TestClusterSettingsValidated: a chart setting of the Kubernetes projects
// that their programs refuse (logstore:helm_timeout 0, logstore:persistence
// "yes") passes validate, so up builds the VPC, the EKS cluster and the
// projects before logstore and fails there (exit 1, half a deployment);
// it must be refused before anything runs, exit 3 (cluster.CheckSettings,
// from both providers' validation).
func TestClusterSettingsValidated(t *testing.T) {
	for _, c := range []struct{ key, value string }{
		{"logstore:helm_timeout", "0"},
		{"logstore:persistence", "yes"},
		{"logstore:data_replicas", "none"},
		{"certmgr:certmgr_helm_repo_url", "charts.jetstack.io"},
	} {
		t.Run(c.key, func(t *testing.T) {
			e := maraWorkspace(t)
			e.ok("config", "set", c.key, c.value)
			refused(t, e, "aws", []string{c.key})
		})
	}
}

// TestPlanOfAFreshStack: preview --out on a fresh -p aws stack, then up
// --plan of that plan, with nothing changed in between, must deploy what
// the preview showed. Every Kubernetes project failed instead: their
// provider's kubeconfig is unknown in a fresh preview, so the plan holds
// the program's inputs unchecked, and up's Check adds apiVersion and kind
// ("the planned create now has other inputs (differing properties:
// apiVersion, kind)"). An interactive up, which executes the preview it
// showed, failed the same way. Such plan steps are now marked unchecked:
// up accepts what the plugin's Check adds.
func TestPlanOfAFreshStack(t *testing.T) {
	e := maraWorkspace(t)
	plan := e.dir + "/../plan.json"
	e.ok("-p", "aws", "preview", "--out", plan)
	r := e.ok("-p", "aws", "up", "--plan", plan)
	if strings.Contains(r.Stdout+r.Stderr, "now has other inputs") {
		t.Error(r)
	}
}

// TestMistypedAWSKey: a key the aws plugin does not have (aws:regoin) is
// refused before anything runs, exit 3, and the hint names that key; it
// pointed at AWS credentials before, which were fine. (Hostile tester's
// finding.)
func TestMistypedAWSKey(t *testing.T) {
	e := maraWorkspace(t)
	e.ok("config", "set", "aws:regoin", "us-west-1")
	e.ok("-p", "aws", "validate") // validate leaves the key to the plugin, which only up runs
	r := refused(t, e, "aws", []string{"`aws:regoin` is not a valid configuration key", "fix the stack config's aws:regoin"})
	if strings.Contains(r.Stdout+r.Stderr, "AWS_ACCESS_KEY_ID") {
		t.Errorf("the refusal of a mistyped key points at credentials:\n%s", r)
	}
}
