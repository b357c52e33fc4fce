package fakecloud_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/e2e/fakecloud"
	"github.com/runnerhq/runner/engine/resource"
)

// TestNestedInputsRefusedThroughThePluginHost: wrong nested inputs reach
// runner's plugin host as check failures naming the property path.
func TestNestedInputsRefusedThroughThePluginHost(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
current-context: c
clusters: [{name: k, cluster: {server: "https://127.0.0.1:6443"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {token: t}}]
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	p := pool(t, append(fakecloud.AWSEnv("us-west-2"), fakecloud.EnvDir+"="+t.TempDir())...)
	aws, err := configure(p, "aws", fakecloud.AWSVersion, resource.PropertyMap{})
	if err != nil {
		t.Fatal(err)
	}
	k8s, err := configure(p, "kubernetes", fakecloud.KubernetesVersion, resource.PropertyMap{"kubeconfig": kubeconfig})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		plugin resource.Plugin
		typ    string
		news   resource.PropertyMap
		path   string
		reason string
	}{
		{aws, "aws:eks/cluster:Cluster", resource.PropertyMap{"roleArn": "arn:aws:iam::1:role/r",
			"vpcConfig": map[string]any{"subnetIds": []any{"subnet-1", float64(2)}}}, "vpcConfig.subnetIds[1]", "must be a string, not number"},
		{k8s, "kubernetes:apps/v1:Deployment", resource.PropertyMap{"spec": map[string]any{"replicas": "three",
			"selector": map[string]any{"matchLabels": map[string]any{"app": "a"}},
			"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "a", "image": "nginx"}}}}}},
			"spec.replicas", "must be an integer, not string"},
		{k8s, "kubernetes:helm.sh/v3:Release", resource.PropertyMap{"chart": "nginx", "values": "a string"}, "values", "must be an object"},
	} {
		urn := resource.URN("urn:pulumi:dev::proj::" + tt.typ + "::x")
		_, err := tt.plugin.Check(context.Background(), resource.CheckRequest{URN: urn, Type: tt.typ, News: tt.news, RandomSeed: make([]byte, 32)})
		var failures *resource.CheckFailuresError
		if !errors.As(err, &failures) || len(failures.Failures) != 1 || failures.Failures[0].Property != tt.path ||
			!strings.Contains(err.Error(), tt.reason) {
			t.Errorf("Check of %s = %v, want one failure at %s: %s", tt.typ, err, tt.path, tt.reason)
		}
	}
}
