package fakecloud_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/e2e/fakecloud"
	"github.com/runnerhq/runner/engine/pluginhost"
	"github.com/runnerhq/runner/engine/resource"
)

// pool returns a plugin pool that finds the fake plugins on PATH, as
// runner does, with env added to a clean environment.
func pool(t *testing.T, env ...string) *pluginhost.Pool {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the fake plugins")
	}
	bins := fakecloud.Binaries(t)
	environ := []string{"PATH=" + bins + string(os.PathListSeparator) + os.Getenv("PATH"),
		"PULUMI_HOME=" + t.TempDir(), "HOME=" + t.TempDir()}
	p := pluginhost.NewPool(pluginhost.PoolOptions{Workspace: t.TempDir(), Environ: append(environ, env...)})
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

// providerURN returns the URN of the default provider of pkg at version.
func providerURN(pkg, version string) resource.URN {
	return resource.URN("urn:pulumi:dev::proj::pulumi:providers:" + pkg + "::default_" + strings.ReplaceAll(version, ".", "_"))
}

// configure checks and configures the provider of pkg with inputs.
func configure(p *pluginhost.Pool, pkg, version string, inputs resource.PropertyMap) (resource.Plugin, error) {
	ctx := context.Background()
	h := p.Plugin(pkg, version)
	inputs["version"] = version
	urn := providerURN(pkg, version)
	checked, err := h.CheckConfig(ctx, resource.CheckRequest{URN: urn, Type: "pulumi:providers:" + pkg, News: inputs})
	if err != nil {
		return nil, err
	}
	return h.Configure(ctx, resource.ConfigureRequest{URN: urn, ID: "4b0c4a44-0000-4000-8000-000000000000", Inputs: checked})
}

func TestAWSThroughThePluginHost(t *testing.T) {
	cloud := t.TempDir()
	p := pool(t, append(fakecloud.AWSEnv("us-west-2"), fakecloud.EnvDir+"="+cloud)...)
	aws, err := configure(p, "aws", fakecloud.AWSVersion, resource.PropertyMap{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const typ = "aws:ec2/vpc:Vpc"
	urn := resource.URN("urn:pulumi:dev::proj::" + typ + "::vpc")
	_, err = aws.Check(ctx, resource.CheckRequest{URN: urn, Type: typ, News: resource.PropertyMap{"cidr": "10.0.0.0/16", "enableDnsSupport": "yes"}})
	var failures *resource.CheckFailuresError
	if !errors.As(err, &failures) || len(failures.Failures) != 2 || failures.Failures[0].Property != "cidr" ||
		failures.Failures[1].Property != "enableDnsSupport" || !strings.Contains(err.Error(), "must be a boolean, not string") {
		t.Fatalf("Check of bad inputs = %v, want failures naming cidr and enableDnsSupport", err)
	}
	ins, err := aws.Check(ctx, resource.CheckRequest{URN: urn, Type: typ, News: resource.PropertyMap{"cidrBlock": "10.0.0.0/16"}})
	if err != nil {
		t.Fatal(err)
	}
	made, err := aws.Create(ctx, resource.CreateRequest{URN: urn, Type: typ, Inputs: ins})
	if err != nil || !strings.HasPrefix(made.ID, "vpc-") || made.Outputs["region"] != "us-west-2" ||
		!strings.HasPrefix(made.Outputs["arn"].(string), "arn:aws:ec2:us-west-2:"+fakecloud.AccountID+":vpc/") {
		t.Fatalf("Create = %+v, %v", made, err)
	}
	if v, ok := made.Outputs["ipv6CidrBlock"]; !ok || v != nil {
		t.Errorf("ipv6CidrBlock = %v, %v; want a null output", v, ok)
	}
	listed, err := fakecloud.List(cloud)
	if err != nil || len(listed) != 1 || listed[0].ID != made.ID || listed[0].Type != typ || listed[0].URN != string(urn) ||
		listed[0].Outputs["cidrBlock"] != "10.0.0.0/16" {
		t.Fatalf("List = %+v, %v", listed, err)
	}
	if err := aws.Delete(ctx, resource.DeleteRequest{URN: urn, Type: typ, ID: made.ID, Inputs: ins, Outputs: made.Outputs}); err != nil {
		t.Fatal(err)
	}
	if listed, err := fakecloud.List(cloud); err != nil || len(listed) != 0 {
		t.Errorf("List after Delete = %+v, %v", listed, err)
	}
}

func TestAWSWithoutCredentials(t *testing.T) {
	p := pool(t, "AWS_REGION=us-west-2", fakecloud.EnvDir+"="+t.TempDir())
	_, err := configure(p, "aws", fakecloud.AWSVersion, resource.PropertyMap{})
	if err == nil || !strings.Contains(err.Error(), "No valid credential sources found") {
		t.Errorf("configure without credentials = %v", err)
	}
}

func TestKubernetesThroughThePluginHost(t *testing.T) {
	cloud := t.TempDir()
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
	p := pool(t, fakecloud.EnvDir+"="+cloud)
	if _, err := configure(p, "kubernetes", fakecloud.KubernetesVersion, resource.PropertyMap{"kubeconfig": kubeconfig, "context": "prod"}); err == nil ||
		!strings.Contains(err.Error(), `context "prod" does not exist`) {
		t.Errorf("configure with a missing context = %v", err)
	}
	k8s, err := configure(p, "kubernetes", fakecloud.KubernetesVersion, resource.PropertyMap{"kubeconfig": kubeconfig})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const typ = "kubernetes:core/v1:ConfigMap"
	urn := resource.URN("urn:pulumi:dev::proj::" + typ + "::settings")
	ins, err := k8s.Check(ctx, resource.CheckRequest{URN: urn, Type: typ, News: resource.PropertyMap{"data": map[string]any{"a": "b"}}, RandomSeed: make([]byte, 32)})
	if err != nil || ins["kind"] != "ConfigMap" || !strings.HasPrefix(ins["metadata"].(map[string]any)["name"].(string), "settings-") {
		t.Fatalf("Check = %v, %v", ins, err)
	}
	made, err := k8s.Create(ctx, resource.CreateRequest{URN: urn, Type: typ, Inputs: ins})
	if err != nil || made.ID != "default/"+ins["metadata"].(map[string]any)["name"].(string) {
		t.Fatalf("Create = %+v, %v", made, err)
	}
	if listed, err := fakecloud.List(cloud); err != nil || len(listed) != 1 || listed[0].Package != "kubernetes" {
		t.Errorf("List = %+v, %v", listed, err)
	}
}
