package plugins

import (
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

func TestCheck(t *testing.T) {
	aws, err := LoadContract("aws")
	if err != nil {
		t.Fatal(err)
	}
	kube, err := LoadContract("kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	s := resource.NewStringProperty
	unknown := resource.MakeComputed(s(""))
	obj := func(m resource.PropertyMap) resource.PropertyValue { return resource.NewObjectProperty(m) }
	cluster := func(extra resource.PropertyMap) resource.PropertyMap {
		m := resource.PropertyMap{"roleArn": s("arn:aws:iam::123456789012:role/r"),
			"vpcConfig": obj(resource.PropertyMap{"subnetIds": resource.NewArrayProperty([]resource.PropertyValue{s("subnet-1")})})}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name     string
		contract *Contract
		typ      string
		news     resource.PropertyMap
		want     []string // "property: part of the reason", in order
	}{
		{"valid", aws, "aws:eks/cluster:Cluster", cluster(nil), nil},
		{"unknown token", aws, "aws:eks/cluster:Clusterr", cluster(nil), []string{`: unknown resource type "aws:eks/cluster:Clusterr"`}},
		{"unknown input", aws, "aws:eks/cluster:Cluster", cluster(resource.PropertyMap{"vpcConfigs": obj(nil)}),
			[]string{`vpcConfigs: aws:eks/cluster:Cluster has no input "vpcConfigs"`}},
		{"missing required", aws, "aws:eks/cluster:Cluster", resource.PropertyMap{"roleArn": s("r")},
			[]string{`vpcConfig: missing required property "vpcConfig"`}},
		{"null required", aws, "aws:eks/cluster:Cluster", cluster(resource.PropertyMap{"vpcConfig": resource.NewNullProperty()}),
			[]string{`vpcConfig: missing required`}},
		{"wrong type", aws, "aws:eks/cluster:Cluster", cluster(resource.PropertyMap{"version": resource.NewNumberProperty(1.33)}),
			[]string{"version: must be a string, not number"}},
		{"array for object", aws, "aws:eks/cluster:Cluster", cluster(resource.PropertyMap{"vpcConfig": resource.NewArrayProperty(nil)}),
			[]string{"vpcConfig: must be an object, not []"}},
		{"secret of the wrong type", aws, "aws:eks/cluster:Cluster", cluster(resource.PropertyMap{"name": resource.MakeSecret(resource.NewBoolProperty(true))}),
			[]string{"name: must be a string, not bool"}},
		{"unknown nested passes", aws, "aws:eks/cluster:Cluster", cluster(resource.PropertyMap{"vpcConfig": obj(resource.PropertyMap{
			"subnetIds": resource.NewArrayProperty([]resource.PropertyValue{unknown, resource.NewProperty(resource.Output{})}), "vpcId": unknown})}), nil},
		{"secret nested of the wrong type", aws, "aws:eks/cluster:Cluster", cluster(resource.PropertyMap{"vpcConfig": obj(resource.PropertyMap{
			"subnetIds": resource.MakeSecret(resource.NewArrayProperty([]resource.PropertyValue{resource.MakeSecret(resource.NewNumberProperty(1))}))})}),
			[]string{"vpcConfig.subnetIds[0]: must be a string, not number"}},
		{"unknown passes", aws, "aws:eks/cluster:Cluster", cluster(resource.PropertyMap{"roleArn": unknown, "version": unknown}), nil},
		{"secret passes", aws, "aws:eks/cluster:Cluster", cluster(resource.PropertyMap{"name": resource.MakeSecret(s("c"))}), nil},
		{"output value passes", aws, "aws:eks/cluster:Cluster", cluster(resource.PropertyMap{"name": resource.NewProperty(resource.Output{Element: s("c"), Known: true})}), nil},
		{"unknown output passes", aws, "aws:eks/cluster:Cluster", cluster(resource.PropertyMap{"name": resource.NewProperty(resource.Output{})}), nil},
		{"any takes anything", kube, "kubernetes:helm.sh/v3:Release", resource.PropertyMap{"chart": s("c"), "values": obj(resource.PropertyMap{
			"a": resource.NewArrayProperty([]resource.PropertyValue{resource.NewNumberProperty(1), obj(resource.PropertyMap{"b": resource.NewBoolProperty(true)})})})}, nil},
		{"the alternative of the value's kind", aws, "aws:iam/role:Role", resource.PropertyMap{"assumeRolePolicy": obj(resource.PropertyMap{"Version": s("2012-10-17")})},
			[]string{`assumeRolePolicy.Statement: missing required property "Statement"`}},
		{"resource reference is a string", aws, "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
			resource.PropertyMap{"policyArn": resource.MakeCustomResourceReference("urn:pulumi:d::p::aws:iam/policy:Policy::p", "arn:p", ""), "role": s("r")}, nil},
		{"wrong const", kube, "kubernetes:core/v1:Service", resource.PropertyMap{"kind": s("Deployment")},
			[]string{"kind: must be Service, not Deployment"}},
		{"right const", kube, "kubernetes:core/v1:Service", resource.PropertyMap{"kind": s("Service"), "apiVersion": s("v1")}, nil},
		{"secret wrong const", kube, "kubernetes:core/v1:Service", resource.PropertyMap{"apiVersion": resource.MakeSecret(s("v2"))},
			[]string{"apiVersion: must be v1, not [secret]"}},
		{"nested secret outside the enum", aws, "aws:iam/role:Role", resource.PropertyMap{"assumeRolePolicy": resource.MakeSecret(obj(resource.PropertyMap{
			"Version": s("s3cr3t-version"), "Statement": resource.NewArrayProperty(nil)}))},
			[]string{"assumeRolePolicy.Version: must be one of 2012-10-17, 2008-10-17, not [secret]"}},
		{"several, sorted", kube, "kubernetes:helm.sh/v3:Release", resource.PropertyMap{"timeout": s("600"), "valuez": obj(nil)},
			[]string{"timeout: must be an integer, not string", `valuez: kubernetes:helm.sh/v3:Release has no input "valuez"`, `chart: missing required`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.contract.Check(tt.typ, tt.news)
			if len(got) != len(tt.want) {
				t.Fatalf("Check = %v, want %d failures %q", got, len(tt.want), tt.want)
			}
			for i, f := range got {
				if line := string(f.Property) + ": " + f.Reason; !strings.HasPrefix(line, strings.SplitN(tt.want[i], ": ", 2)[0]+": ") ||
					!strings.Contains(line, tt.want[i]) {
					t.Errorf("failure %d = %q, want %q", i, line, tt.want[i])
				}
			}
		})
	}
}

func TestLoadContract(t *testing.T) {
	for _, tt := range []struct{ pkg, version, typ string }{
		{"aws", "7.48.0", "aws:ec2/vpc:Vpc"},
		{"kubernetes", "4.34.2", "kubernetes:helm.sh/v3:Release"},
		{"digitalocean", "4.80.1", "digitalocean:index/kubernetesCluster:KubernetesCluster"},
		{"linode", "5.1.1", "linode:index/lkeCluster:LkeCluster"},
	} {
		c, err := LoadContract(tt.pkg)
		if err != nil || c.Version != tt.version || len(c.Resources[tt.typ].Outputs) == 0 {
			t.Errorf("LoadContract(%s) = %v, %v", tt.pkg, c != nil, err)
		}
	}
	if _, err := LoadContract("gcp"); err == nil || !strings.Contains(err.Error(), "no contract") {
		t.Errorf("LoadContract(gcp) = %v", err)
	}
}
