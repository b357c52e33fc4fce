package plugins

import (
	"context"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
)

// An Elastic IP returns its allocationId (its ID; unknown in preview), a
// public NAT gateway without one is refused as AWS refuses it, and a tag
// value equal to another resource's ID (a NAT gateway tagged Name=<the EKS
// cluster's name>) does not keep that resource from being deleted.
func TestAWSElasticIPAndNATGateway(t *testing.T) {
	p := awsProvider(t)
	ctx := context.Background()
	s := resource.NewStringProperty
	_, pre := checkCreate(t, p, "aws:ec2/eip:Eip", "ip", resource.PropertyMap{"domain": s("vpc")}, true)
	if !pre.Properties["allocationId"].IsComputed() {
		t.Errorf("allocationId in preview = %v, want unknown", pre.Properties["allocationId"])
	}
	_, eip := checkCreate(t, p, "aws:ec2/eip:Eip", "ip", resource.PropertyMap{"domain": s("vpc")}, false)
	if got := str(eip.Properties, "allocationId"); got == "" || got != string(eip.ID) {
		t.Errorf("allocationId = %q, want the ID %s", got, eip.ID)
	}

	typ := "aws:ec2/natGateway:NatGateway"
	for _, tc := range []struct {
		name   string
		ins    resource.PropertyMap
		refuse bool
	}{
		{"public without allocation", resource.PropertyMap{"subnetId": s("subnet-1")}, true},
		{"public with null allocation", resource.PropertyMap{"subnetId": s("subnet-1"), "connectivityType": s("public"), "allocationId": resource.NewNullProperty()}, true},
		{"public with unknown allocation", resource.PropertyMap{"subnetId": s("subnet-1"), "allocationId": resource.MakeComputed(s(""))}, false},
		{"public with allocation", resource.PropertyMap{"subnetId": s("subnet-1"), "allocationId": s(string(eip.ID))}, false},
		{"private", resource.PropertyMap{"subnetId": s("subnet-1"), "connectivityType": s("private")}, false},
	} {
		got, err := p.Check(ctx, plugin.CheckRequest{URN: urnOf(typ, "nat"), Name: "nat", Type: tokens.Type(typ), News: tc.ins})
		refused := len(got.Failures) == 1 && got.Failures[0].Property == "allocationId" && strings.Contains(got.Failures[0].Reason, "Elastic IP")
		if err != nil || refused != tc.refuse || !tc.refuse && len(got.Failures) > 0 {
			t.Errorf("%s: Check = %v, %v; want refused %v", tc.name, got.Failures, err, tc.refuse)
		}
	}

	_, cluster := checkCreate(t, p, "aws:eks/cluster:Cluster", "eks", resource.PropertyMap{"name": s("mara-dev"),
		"roleArn": s("arn:aws:iam::123456789012:role/r"), "vpcConfig": resource.NewObjectProperty(resource.PropertyMap{
			"subnetIds": resource.NewArrayProperty([]resource.PropertyValue{s("subnet-1")})})}, false)
	checkCreate(t, p, typ, "nat", resource.PropertyMap{"subnetId": s("subnet-1"), "allocationId": s(string(eip.ID)),
		"tags": resource.NewObjectProperty(resource.PropertyMap{"Name": s(string(cluster.ID))})}, false)
	if _, err := p.Delete(ctx, plugin.DeleteRequest{Type: "aws:eks/cluster:Cluster", ID: cluster.ID}); err != nil {
		t.Errorf("deleting the cluster a NAT gateway's tag names: %v", err)
	}
	if _, err := p.Delete(ctx, plugin.DeleteRequest{Type: "aws:ec2/eip:Eip", ID: eip.ID}); err == nil || !strings.Contains(err.Error(), "DependencyViolation") {
		t.Errorf("deleting the Elastic IP the NAT gateway holds: %v", err)
	}
}
