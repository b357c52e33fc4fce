package pulumiprojects

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/e2e/fakecloud"
)

// TestWrongNestedInputsRefusedThroughTheCLI: a user's JavaScript program
// that gives an EKS cluster a subnet ID of the wrong type, nested in
// vpcConfig, is refused by the fake aws provider, and runner names the
// property path (before issue 22 the fakes checked only top-level inputs
// and it passed).
func TestWrongNestedInputsRefusedThroughTheCLI(t *testing.T) {
	w := newWS(t)
	cloud := t.TempDir()
	path := fakecloud.Binaries(t) + string(os.PathListSeparator) + os.Getenv("PATH")
	w.extra = append(append(w.extra, "PATH="+path, fakecloud.EnvDir+"="+cloud), fakecloud.AWSEnv("us-west-2")...)
	w.write(map[string]string{
		"runner.yaml":      "providers:\n  e:\n    projects:\n      eks: {path: eks}\n",
		"eks/Pulumi.yaml":  "name: eks\nruntime: nodejs\n",
		"eks/package.json": `{"name": "eks", "main": "index.js"}`,
		"eks/index.js": `const pulumi = require("@pulumi/pulumi");
new pulumi.CustomResource("aws:eks/cluster:Cluster", "cluster", {
    roleArn: "arn:aws:iam::123456789012:role/r",
    vpcConfig: { subnetIds: ["subnet-1", 2], endpointPublicAccess: "yes" },
});
`,
	})
	if err := os.Symlink(nodeModules(t), filepath.Join(w.dir, "eks", "node_modules")); err != nil {
		t.Fatal(err)
	}
	r := w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
	out := r.Stdout + r.Stderr
	for _, want := range []string{"property vpcConfig.endpointPublicAccess: must be a boolean, not string", "property vpcConfig.subnetIds[1]: must be a string, not number"} {
		if !strings.Contains(out, want) {
			t.Errorf("up does not say %q:\n%s", want, out)
		}
	}
	if listed, err := fakecloud.List(cloud); err != nil || len(listed) != 0 {
		t.Errorf("the fake cloud holds %v (%v), want nothing", listed, err)
	}
}
