package clouds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLKETagsOnShortStackName: Linode's API refuses a tag shorter than 3
// characters (or longer than 50), so the lke project must not tag the
// cluster with a bare stack name: up -p linode on stack "qa" makes the
// LKE cluster, each of its tags one Linode takes.
func TestLKETagsOnShortStackName(t *testing.T) {
	e := linodeWorkspace(t, true)
	dev := filepath.Join(e.dir, "config", "pulumi", "Pulumi.dev.yaml")
	data, err := os.ReadFile(dev)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, "config", "pulumi", "Pulumi.qa.yaml"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	envFile := filepath.Join(e.dir, "config", "pulumi", "environment")
	env, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(envFile, []byte(strings.ReplaceAll(string(env), "PULUMI_STACK=dev", "PULUMI_STACK=qa")), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.run("-s", "qa", "-p", "linode", "up", "--yes"); r.Code != 0 {
		t.Fatalf("up -p linode on stack qa failed:\n%s", r)
	}
	clusters := e.ofType("linode:index/lkeCluster:LkeCluster")
	if len(clusters) != 1 {
		t.Fatalf("%d LKE clusters in the fake cloud, want 1", len(clusters))
	}
	tags, _ := clusters[0].Inputs["tags"].([]any)
	if len(tags) == 0 {
		t.Fatal("the LKE cluster has no tags")
	}
	for _, tag := range tags {
		if s, _ := tag.(string); len(s) < 3 || len(s) > 50 || !strings.Contains(s, "qa") && s != "mara" {
			t.Errorf("the LKE cluster's tag %q is not MARA's tag or one naming the stack qa in 3 to 50 characters", s)
		}
	}
}
