package plugins

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
)

// podTemplate returns a pod template whose one container is c.
func podTemplate(c map[string]any) map[string]any {
	return map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "a"}},
		"spec": map[string]any{"containers": []any{c}}}
}

// selector is the label selector of podTemplate's pods.
var selector = map[string]any{"matchLabels": map[string]any{"app": "a"}}

// nestedCases are the four wrong nested inputs, then one per
// resource type runner's programs use: each input is valid but for the
// properties at want, which the fake must refuse by their paths.
var nestedCases = []struct {
	name, pkg, typ string
	inputs         map[string]any
	want           []string // "path: part of the reason", sorted by path as Check reports
}{
	{"issue: EKS vpcConfig with subnetIDs", "aws", "aws:eks/cluster:Cluster",
		map[string]any{"roleArn": "arn:aws:iam::1:role/r", "vpcConfig": map[string]any{"subnetIDs": "x"}},
		[]string{`vpcConfig.subnetIDs: unknown property "subnetIDs"`, `vpcConfig.subnetIds: missing required property "subnetIds"`}},
	{"issue: node group subnetIds of numbers", "aws", "aws:eks/nodeGroup:NodeGroup",
		map[string]any{"clusterName": "c", "nodeRoleArn": "arn", "subnetIds": []any{1, true},
			"scalingConfig": map[string]any{"desiredSize": 1, "maxSize": 1, "minSize": 1}},
		[]string{"subnetIds[0]: must be a string, not number", "subnetIds[1]: must be a string, not bool"}},
	{"issue: Deployment replicas three", "kubernetes", "kubernetes:apps/v1:Deployment",
		map[string]any{"spec": map[string]any{"replicas": "three", "selector": selector, "template": podTemplate(map[string]any{"name": "a", "image": "nginx"})}},
		[]string{"spec.replicas: must be an integer, not string"}},
	{"issue: Release values a string", "kubernetes", "kubernetes:helm.sh/v3:Release",
		map[string]any{"chart": "nginx", "values": "a string"},
		[]string{"values: must be an object, not string"}},

	{"Vpc", "aws", "aws:ec2/vpc:Vpc", map[string]any{"cidrBlock": "10.0.0.0/16", "tags": map[string]any{"Name": 1}},
		[]string{"tags.Name: must be a string, not number"}},
	{"Subnet", "aws", "aws:ec2/subnet:Subnet", map[string]any{"vpcId": "vpc-1", "tags": map[string]any{"kubernetes.io/role/elb": 1}},
		[]string{`tags["kubernetes.io/role/elb"]: must be a string, not number`}},
	{"Eip", "aws", "aws:ec2/eip:Eip", map[string]any{"domain": "vpc", "tags": map[string]any{"Name": true}},
		[]string{"tags.Name: must be a string, not bool"}},
	{"InternetGateway", "aws", "aws:ec2/internetGateway:InternetGateway", map[string]any{"vpcId": "vpc-1", "tags": map[string]any{"Name": []any{"a"}}},
		[]string{"tags.Name: must be a string, not []"}},
	{"NatGateway", "aws", "aws:ec2/natGateway:NatGateway",
		map[string]any{"allocationId": "eipalloc-1", "subnetId": "subnet-1", "availabilityZoneAddresses": []any{map[string]any{"allocationIds": "eipalloc-2"}}},
		[]string{"availabilityZoneAddresses[0].allocationIds: must be an array, not string"}},
	{"Route", "aws", "aws:ec2/route:Route", map[string]any{"routeTableId": "rtb-1", "destinationCidrBlock": "0.0.0.0/0", "natGatewayId": 7},
		[]string{"natGatewayId: must be a string, not number"}},
	{"RouteTable", "aws", "aws:ec2/routeTable:RouteTable", map[string]any{"vpcId": "vpc-1", "routes": []any{map[string]any{"cidrBlock": "0.0.0.0/0", "gatewayId": 1}}},
		[]string{"routes[0].gatewayId: must be a string, not number"}},
	{"RouteTableAssociation", "aws", "aws:ec2/routeTableAssociation:RouteTableAssociation", map[string]any{"routeTableId": "rtb-1", "subnetId": []any{"subnet-1"}},
		[]string{"subnetId: must be a string, not []"}},
	{"Repository", "aws", "aws:ecr/repository:Repository", map[string]any{"name": "r", "imageScanningConfiguration": map[string]any{"scanOnPush": "yes"}},
		[]string{"imageScanningConfiguration.scanOnPush: must be a boolean, not string"}},
	{"Cluster", "aws", "aws:eks/cluster:Cluster",
		map[string]any{"roleArn": "arn", "vpcConfig": map[string]any{"subnetIds": []any{"subnet-1"}, "endpointPublicAccess": "true"}},
		[]string{"vpcConfig.endpointPublicAccess: must be a boolean, not string"}},
	{"NodeGroup", "aws", "aws:eks/nodeGroup:NodeGroup",
		map[string]any{"clusterName": "c", "nodeRoleArn": "arn", "subnetIds": []any{"s"}, "scalingConfig": map[string]any{"desiredSize": 1, "maxSize": 2}},
		[]string{`scalingConfig.minSize: missing required property "minSize"`}},
	{"Role", "aws", "aws:iam/role:Role",
		map[string]any{"assumeRolePolicy": map[string]any{"Version": "2013-01-01", "Statement": []any{map[string]any{"Effect": "Allow", "Action": "sts:AssumeRole"}}}},
		[]string{"assumeRolePolicy.Version: must be one of 2012-10-17, 2008-10-17, not 2013-01-01"}},
	{"RolePolicyAttachment", "aws", "aws:iam/rolePolicyAttachment:RolePolicyAttachment", map[string]any{"role": "r", "policyArn": map[string]any{"arn": "x"}},
		[]string{"policyArn: must be a string, not object"}},

	{"Deployment", "kubernetes", "kubernetes:apps/v1:Deployment",
		map[string]any{"spec": map[string]any{"selector": selector, "template": podTemplate(map[string]any{"name": "a", "image": "nginx",
			"ports": []any{map[string]any{"containerPort": "80"}}})}},
		[]string{"spec.template.spec.containers[0].ports[0].containerPort: must be an integer, not string"}},
	{"StatefulSet", "kubernetes", "kubernetes:apps/v1:StatefulSet",
		map[string]any{"spec": map[string]any{"serviceName": "s", "selector": selector, "template": podTemplate(map[string]any{"image": "nginx"})}},
		[]string{`spec.template.spec.containers[0].name: missing required property "name"`}},
	{"Job", "kubernetes", "kubernetes:batch/v1:Job",
		map[string]any{"spec": map[string]any{"backoffLimit": "2", "template": map[string]any{"spec": map[string]any{"restartPolicy": "Never",
			"containers": []any{map[string]any{"name": "c", "image": "curl", "env": []any{map[string]any{"name": "P",
				"valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "s"}}}}}}}}}},
		[]string{"spec.backoffLimit: must be an integer, not string",
			`spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.key: missing required property "key"`}},
	{"ConfigMap", "kubernetes", "kubernetes:core/v1:ConfigMap", map[string]any{"data": map[string]any{"a": 1}},
		[]string{"data.a: must be a string, not number"}},
	{"Namespace", "kubernetes", "kubernetes:core/v1:Namespace", map[string]any{"metadata": map[string]any{"name": "n", "labels": map[string]any{"app.kubernetes.io/name": 1}}},
		[]string{`metadata.labels["app.kubernetes.io/name"]: must be a string, not number`}},
	{"Secret", "kubernetes", "kubernetes:core/v1:Secret", map[string]any{"stringData": map[string]any{"password": true}},
		[]string{"stringData.password: must be a string, not bool"}},
	{"Service", "kubernetes", "kubernetes:core/v1:Service", map[string]any{"spec": map[string]any{"ports": []any{map[string]any{"port": "80"}}}},
		[]string{"spec.ports[0].port: must be an integer, not string"}},
	{"Release", "kubernetes", "kubernetes:helm.sh/v3:Release",
		map[string]any{"chart": "my chart", "version": "latest", "values": map[string]any{}, "repositoryOpts": map[string]any{"repo": "charts.example.com"}},
		[]string{"chart: a chart is a name", "version: a chart version is a version or constraint", "repositoryOpts.repo: a chart repository is an http(s) URL"}},
	{"Ingress", "kubernetes", "kubernetes:networking.k8s.io/v1:Ingress",
		map[string]any{"spec": map[string]any{"rules": []any{map[string]any{"host": "a.example.com", "http": map[string]any{"paths": []any{map[string]any{
			"path": "/", "pathType": "Prefix", "backend": map[string]any{"service": map[string]any{"name": "s", "port": map[string]any{"number": "80"}}}}}}}}}},
		[]string{"spec.rules[0].http.paths[0].backend.service.port.number: must be an integer, not string"}},
}

func TestCheckRefusesNestedShapes(t *testing.T) {
	providers := newProviders(t, "aws", "kubernetes")
	covered := map[string]bool{}
	for _, tt := range nestedCases {
		t.Run(tt.name, func(t *testing.T) {
			covered[tt.typ] = true
			got := check(t, providers[tt.pkg], tt.typ, tt.inputs)
			if len(got) != len(tt.want) {
				t.Fatalf("failures %q, want %q", got, tt.want)
			}
			for i, w := range tt.want {
				path, reason, _ := strings.Cut(w, ": ")
				if !strings.HasPrefix(got[i], path+": ") || !strings.Contains(got[i], reason) {
					t.Errorf("failure %d = %q, want %q", i, got[i], w)
				}
			}
		})
	}
	for pkg := range providers {
		for typ := range shapesOf(t, pkg).Resources {
			if !covered[typ] {
				t.Errorf("%s has nested shapes (a type runner's programs use) but no case here", typ)
			}
		}
	}
}

// shapesOf returns the shapes file of pkg.
func shapesOf(t *testing.T, pkg string) *Shapes {
	t.Helper()
	data, err := contracts.ReadFile("testdata/shapes/" + pkg + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var sh Shapes
	if err := json.Unmarshal(data, &sh); err != nil {
		t.Fatal(err)
	}
	return &sh
}

// check returns the provider's Check failures of typ with inputs, as
// "path: reason".
func check(t *testing.T, p plugin.Provider, typ string, inputs map[string]any) []string {
	t.Helper()
	urn := resource.NewURN("dev", "proj", "", tokens.Type(typ), "x")
	resp, err := p.Check(context.Background(), plugin.CheckRequest{URN: urn, Name: "x", Type: tokens.Type(typ),
		News: resource.NewPropertyMapFromMap(inputs), RandomSeed: []byte("seed")})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range resp.Failures {
		out = append(out, string(f.Property)+": "+f.Reason)
	}
	return out
}

// newProviders makes the fake provider of each package, by package.
func newProviders(t *testing.T, pkgs ...string) map[string]plugin.Provider {
	t.Helper()
	providers := map[string]plugin.Provider{}
	for _, pkg := range pkgs {
		p, err := NewProvider(pkg)
		if err != nil {
			t.Fatal(err)
		}
		providers[pkg] = p
	}
	return providers
}
