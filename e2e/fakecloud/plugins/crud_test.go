package plugins

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"regexp"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
)

// awsProvider returns a configured fake aws provider on an empty cloud.
func awsProvider(t *testing.T) *provider {
	t.Helper()
	cleanEnv(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIA")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "s")
	p, err := configure(t, "aws", map[string]string{"region": "eu-west-1"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// urnOf returns the URN of a resource named name of type typ.
func urnOf(typ, name string) resource.URN {
	return resource.NewURN("dev", "proj", "", tokens.Type(typ), name)
}

// checkCreate checks and creates a resource, failing the test on any failure.
func checkCreate(t *testing.T, p *provider, typ, name string, news resource.PropertyMap, preview bool) (resource.PropertyMap, plugin.CreateResponse) {
	t.Helper()
	ctx := context.Background()
	urn := urnOf(typ, name)
	checked, err := p.Check(ctx, plugin.CheckRequest{URN: urn, Name: name, Type: tokens.Type(typ), News: news, RandomSeed: []byte("seed-" + name)})
	if err != nil || len(checked.Failures) > 0 {
		t.Fatalf("Check %s: %v %v", name, err, checked.Failures)
	}
	made, err := p.Create(ctx, plugin.CreateRequest{URN: urn, Name: name, Type: tokens.Type(typ), Properties: checked.Properties, Preview: preview})
	if err != nil {
		t.Fatalf("Create %s: %v", name, err)
	}
	return checked.Properties, made
}

// str returns the string at a dot path of m ("" if none).
func str(m resource.PropertyMap, path string) string {
	v := resource.NewObjectProperty(m)
	for _, k := range strings.Split(path, ".") {
		if v = Plain(v); v.IsArray() && len(v.ArrayValue()) > 0 {
			v = v.ArrayValue()[0]
		}
		if !v.IsObject() {
			return ""
		}
		v = v.ObjectValue()[resource.PropertyKey(k)]
	}
	if v = Plain(v); v.IsString() {
		return v.StringValue()
	}
	return ""
}

func TestAWSLifecycle(t *testing.T) {
	p := awsProvider(t)
	ctx := context.Background()
	s := resource.NewStringProperty
	vpcIns, vpc := checkCreate(t, p, "aws:ec2/vpc:Vpc", "vpc", resource.PropertyMap{"cidrBlock": s("10.0.0.0/16"), "tags": resource.NewObjectProperty(resource.PropertyMap{"Name": s("v")})}, false)
	if !regexp.MustCompile(`^vpc-[0-9a-f]{17}$`).MatchString(string(vpc.ID)) || str(vpc.Properties, "tagsAll.Name") != "v" ||
		!strings.HasPrefix(str(vpc.Properties, "mainRouteTableId"), "rtb-") || str(vpc.Properties, "ownerId") != AccountID {
		t.Errorf("VPC %s outputs %v", vpc.ID, vpc.Properties)
	}
	if v, ok := vpc.Properties["ipv6CidrBlock"]; !ok || !v.IsNull() {
		t.Errorf("an output the fake cannot know is %v, want null", v)
	}
	_, cluster := checkCreate(t, p, "aws:eks/cluster:Cluster", "eks", resource.PropertyMap{
		"roleArn": s("arn:aws:iam::123456789012:role/r"), "vpcConfig": resource.NewObjectProperty(resource.PropertyMap{
			"subnetIds": resource.NewArrayProperty([]resource.PropertyValue{s(string(vpc.ID))})})}, false)
	name := str(cluster.Properties, "name")
	if !regexp.MustCompile(`^eks-[0-9a-f]{7}$`).MatchString(name) || string(cluster.ID) != name ||
		str(cluster.Properties, "arn") != "arn:aws:eks:eu-west-1:123456789012:cluster/"+name ||
		!regexp.MustCompile(`^https://[0-9A-F]{32}\.gr7\.eu-west-1\.eks\.amazonaws\.com$`).MatchString(str(cluster.Properties, "endpoint")) {
		t.Errorf("cluster %s outputs %v", cluster.ID, cluster.Properties)
	}
	ca, err := base64.StdEncoding.DecodeString(str(cluster.Properties, "certificateAuthority.data"))
	block, _ := pem.Decode(ca)
	if err != nil || block == nil {
		t.Fatalf("certificateAuthority.data is not base64 PEM: %v", err)
	}
	if _, err := x509.ParseCertificate(block.Bytes); err != nil {
		t.Errorf("certificate: %v", err)
	}

	// The VPC cannot go while the cluster refers to it.
	del := func(id resource.ID, typ string) error {
		_, err := p.Delete(ctx, plugin.DeleteRequest{URN: urnOf(typ, "x"), Type: tokens.Type(typ), ID: id})
		return err
	}
	if err := del(vpc.ID, "aws:ec2/vpc:Vpc"); err == nil || !strings.Contains(err.Error(), "DependencyViolation") {
		t.Errorf("deleting the VPC under the cluster: %v", err)
	}

	// Same inputs: no diff. Changed tags: an update keeping the ID's outputs.
	// The new Name tag is the cluster's name: a label, not a reference, so
	// the cluster can still be deleted below.
	d, err := p.Diff(ctx, plugin.DiffRequest{Type: "aws:ec2/vpc:Vpc", ID: vpc.ID, OldInputs: vpcIns, OldOutputs: vpc.Properties, NewInputs: vpcIns})
	if err != nil || d.Changes != plugin.DiffNone {
		t.Errorf("Diff of the same inputs = %+v, %v", d, err)
	}
	news := vpcIns.Copy()
	news["tags"] = resource.NewObjectProperty(resource.PropertyMap{"Name": s(name)})
	d, err = p.Diff(ctx, plugin.DiffRequest{Type: "aws:ec2/vpc:Vpc", ID: vpc.ID, OldInputs: vpcIns, NewInputs: news})
	if err != nil || d.Changes != plugin.DiffSome || len(d.ReplaceKeys) != 0 || len(d.ChangedKeys) != 1 {
		t.Errorf("Diff of new tags = %+v, %v", d, err)
	}
	up, err := p.Update(ctx, plugin.UpdateRequest{URN: urnOf("aws:ec2/vpc:Vpc", "vpc"), Type: "aws:ec2/vpc:Vpc", ID: vpc.ID, OldInputs: vpcIns, OldOutputs: vpc.Properties, NewInputs: news})
	if err != nil || str(up.Properties, "tagsAll.Name") != name || str(up.Properties, "arn") != str(vpc.Properties, "arn") {
		t.Errorf("Update = %v, %v", up.Properties, err)
	}
	news["cidrBlock"] = s("10.1.0.0/16")
	if d, _ := p.Diff(ctx, plugin.DiffRequest{Type: "aws:ec2/vpc:Vpc", ID: vpc.ID, OldInputs: vpcIns, NewInputs: news}); len(d.ReplaceKeys) != 1 {
		t.Errorf("Diff of a new CIDR = %+v, want a replace", d)
	}

	read, err := p.Read(ctx, plugin.ReadRequest{URN: urnOf("aws:ec2/vpc:Vpc", "vpc"), Type: "aws:ec2/vpc:Vpc", ID: vpc.ID})
	if err != nil || read.ID != vpc.ID || str(read.Outputs, "tagsAll.Name") != name {
		t.Errorf("Read = %+v, %v", read, err)
	}
	if err := del(cluster.ID, "aws:eks/cluster:Cluster"); err != nil {
		t.Fatal(err)
	}
	if err := del(vpc.ID, "aws:ec2/vpc:Vpc"); err != nil {
		t.Fatal(err)
	}
	if gone, err := p.Read(ctx, plugin.ReadRequest{Type: "aws:ec2/vpc:Vpc", ID: vpc.ID}); err != nil || gone.ID != "" {
		t.Errorf("Read after Delete = %+v, %v", gone, err)
	}
	if all, _ := p.store.all(); len(all) != 0 {
		t.Errorf("the cloud still holds %d resources", len(all))
	}
}

func TestAWSPreviewAndECR(t *testing.T) {
	p := awsProvider(t)
	_, pre := checkCreate(t, p, "aws:ecr/repository:Repository", "kic", resource.PropertyMap{}, true)
	if pre.ID != "" || !pre.Properties["arn"].IsComputed() || str(pre.Properties, "repositoryUrl") != AccountID+".dkr.ecr.eu-west-1.amazonaws.com/kic-"+str(pre.Properties, "name")[4:] {
		t.Errorf("preview = %s %v", pre.ID, pre.Properties)
	}
	if all, _ := p.store.all(); len(all) != 0 {
		t.Errorf("preview stored %d resources", len(all))
	}
	for _, force := range []bool{false, true} {
		t.Setenv(EnvECRImages, "1")
		_, repo := checkCreate(t, p, "aws:ecr/repository:Repository", "repo", resource.PropertyMap{
			"name": resource.NewStringProperty("repo"), "forceDelete": resource.NewBoolProperty(force)}, false)
		_, err := p.Delete(context.Background(), plugin.DeleteRequest{Type: "aws:ecr/repository:Repository", ID: repo.ID})
		if force && err != nil || !force && (err == nil || !strings.Contains(err.Error(), "RepositoryNotEmptyException")) {
			t.Errorf("forceDelete %v: Delete = %v", force, err)
		}
		t.Setenv(EnvECRImages, "")
		if !force {
			if _, err := p.Delete(context.Background(), plugin.DeleteRequest{Type: "aws:ecr/repository:Repository", ID: repo.ID}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestKubernetesResources(t *testing.T) {
	cleanEnv(t)
	p, err := configure(t, "kubernetes", map[string]string{"kubeconfig": testKubeconfig})
	if err != nil {
		t.Fatal(err)
	}
	s := resource.NewStringProperty
	obj := func(m resource.PropertyMap) resource.PropertyValue { return resource.NewObjectProperty(m) }
	ins, ns := checkCreate(t, p, "kubernetes:core/v1:Namespace", "ingress", resource.PropertyMap{}, false)
	name := str(ins, "metadata.name")
	if !regexp.MustCompile(`^ingress-[0-9a-f]{7}$`).MatchString(name) || string(ns.ID) != name || str(ins, "kind") != "Namespace" ||
		str(ns.Properties, "metadata.namespace") != "" || str(ns.Properties, "metadata.uid") == "" || str(ns.Properties, "status.phase") != "Active" {
		t.Errorf("namespace %s: inputs %v outputs %v", ns.ID, ins, ns.Properties)
	}
	svcIns := resource.PropertyMap{"metadata": obj(resource.PropertyMap{"name": s("lb")}), "spec": obj(resource.PropertyMap{"type": s("LoadBalancer")})}
	_, svc := checkCreate(t, p, "kubernetes:core/v1:Service", "lb", svcIns, false)
	if svc.ID != "apps/lb" || !regexp.MustCompile(`\.elb\.eu-west-1\.amazonaws\.com$`).MatchString(str(svc.Properties, "status.loadBalancer.ingress.hostname")) {
		t.Errorf("service %s outputs %v", svc.ID, svc.Properties)
	}
	if _, err := p.Create(context.Background(), plugin.CreateRequest{URN: urnOf("kubernetes:core/v1:Service", "lb2"), Type: "kubernetes:core/v1:Service", Properties: svcIns}); err == nil {
		t.Error("a second Service apps/lb was created")
	}
	_, rel := checkCreate(t, p, releaseType, "nginx", resource.PropertyMap{"chart": s("nginx-ingress"), "version": s("2.0.1")}, false)
	if str(rel.Properties, "status.status") != "deployed" || str(rel.Properties, "status.namespace") != "apps" ||
		str(rel.Properties, "status.chart") != "nginx-ingress" || !strings.HasPrefix(string(rel.ID), "apps/nginx-") {
		t.Errorf("release %s outputs %v", rel.ID, rel.Properties)
	}
	d, err := p.Diff(context.Background(), plugin.DiffRequest{Type: "kubernetes:core/v1:Service", OldInputs: svcIns,
		NewInputs: resource.PropertyMap{"metadata": obj(resource.PropertyMap{"name": s("lb"), "namespace": s("other")}), "spec": svcIns["spec"]}})
	if err != nil || len(d.ReplaceKeys) != 1 || d.ReplaceKeys[0] != "metadata" {
		t.Errorf("Diff of a new namespace = %+v, %v", d, err)
	}
	_, pre := checkCreate(t, p, "kubernetes:core/v1:Service", "pre", svcIns, true)
	if st := pre.Properties["status"]; !Plain(st).ObjectValue()["loadBalancer"].ObjectValue()["ingress"].IsComputed() {
		t.Errorf("preview status %v, want an unknown ingress", st)
	}
}

// An Elastic IP's allocationId is its ID (unknown in preview), as a NAT
// gateway's allocationId needs it.
func TestAWSEipAllocationID(t *testing.T) {
	p := awsProvider(t)
	_, pre := checkCreate(t, p, "aws:ec2/eip:Eip", "ip", resource.PropertyMap{"domain": resource.NewStringProperty("vpc")}, true)
	if !pre.Properties["allocationId"].IsComputed() {
		t.Errorf("allocationId in preview = %v, want unknown", pre.Properties["allocationId"])
	}
	_, eip := checkCreate(t, p, "aws:ec2/eip:Eip", "ip", resource.PropertyMap{"domain": resource.NewStringProperty("vpc")}, false)
	if !strings.HasPrefix(string(eip.ID), "eipalloc-") || str(eip.Properties, "allocationId") != string(eip.ID) {
		t.Errorf("Eip %s allocationId = %q, want its ID", eip.ID, str(eip.Properties, "allocationId"))
	}
}

// TestTagsAreNoDependency: a subnet or VPC tagged with the cluster's name
// (kubernetes.io/cluster/<name>, or a tag value) does not hold the cluster
// back from deletion, as in AWS (found by destroying -p aws).
func TestTagsAreNoDependency(t *testing.T) {
	tests := []struct {
		inputs map[string]any
		want   bool
	}{
		{map[string]any{"tags": map[string]any{"cluster": "mara-dev"}}, false},
		{map[string]any{"tagsAll": map[string]any{"kubernetes.io/cluster/mara-dev": "shared"}}, false},
		{map[string]any{"clusterName": "mara-dev"}, true},
		{map[string]any{"vpcConfig": map[string]any{"subnetIds": []any{"mara-dev"}}}, true},
	}
	for _, tt := range tests {
		if got := mentions(withoutTags(tt.inputs), []string{"mara-dev"}); got != tt.want {
			t.Errorf("mentions(%v) = %v, want %v", tt.inputs, got, tt.want)
		}
	}
}
