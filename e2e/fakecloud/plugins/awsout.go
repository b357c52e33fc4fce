package plugins

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"math/big"
	"strings"

	"github.com/google/uuid"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// outputs computes the aws outputs: arn, tagsAll, region, account IDs,
// creation times and each known type's own (EKS endpoint and certificate,
// ECR URL, EC2 default IDs, ...).
func (c *awsCloud) outputs(typ string, g *gen, inputs, outs resource.PropertyMap) {
	c.mu.Lock()
	region := c.region
	c.mu.Unlock()
	if r := Plain(inputs["region"]); r.IsString() {
		region = r.StringValue()
	}
	str := func(k resource.PropertyKey) string {
		if v := Plain(outs[k]); v.IsString() {
			return v.StringValue()
		}
		return ""
	}
	set := func(k resource.PropertyKey, v resource.PropertyValue) {
		if _, listed := outs[k]; listed && outs[k].IsNull() {
			outs[k] = v
		}
	}
	s := resource.NewStringProperty
	module, name := typeName(typ)
	set("region", s(region))
	set("ownerId", s(AccountID))
	set("accountId", s(AccountID))
	set("registryId", s(AccountID))
	tags := inputs["tags"]
	if tags.IsNull() {
		tags = resource.NewObjectProperty(resource.PropertyMap{})
	}
	set("tagsAll", tags)
	set("createDate", g.keep("createDate", now))
	set("createdAt", g.keep("createdAt", now))
	arnName := firstOf(str("name"), randHex(17))
	if typ == "aws:eks/nodeGroup:NodeGroup" {
		arnName = str("clusterName") + ":" + str("nodeGroupName")
	}
	set("arn", g.keep("arn", func() resource.PropertyValue { return s(awsARN(module, name, region, arnName)) }))
	switch typ {
	case "aws:ec2/vpc:Vpc":
		for k, prefix := range map[resource.PropertyKey]string{"mainRouteTableId": "rtb", "defaultRouteTableId": "rtb",
			"defaultSecurityGroupId": "sg", "defaultNetworkAclId": "acl", "dhcpOptionsId": "dopt"} {
			set(k, g.keep(string(k), func() resource.PropertyValue { return s(prefix + "-" + randHex(17)) }))
		}
		set("instanceTenancy", s("default"))
	case "aws:ec2/eip:Eip", "aws:ec2/natGateway:NatGateway":
		ip := g.keep("publicIp", func() resource.PropertyValue { return s(randomIP("54")) })
		set("publicIp", ip)
		set("privateIp", g.keep("privateIp", func() resource.PropertyValue { return s(randomIP("10")) }))
		set("networkInterfaceId", g.keep("networkInterfaceId", func() resource.PropertyValue { return s("eni-" + randHex(17)) }))
		set("domain", s("vpc"))
		set("connectivityType", s("public"))
		if v, _ := Contents(ip); v.IsString() {
			set("publicDns", s("ec2-"+strings.ReplaceAll(v.StringValue(), ".", "-")+"."+region+".compute.amazonaws.com"))
		}
		if typ == "aws:ec2/eip:Eip" { // the ID, set by idOutputs at create
			set("allocationId", g.keep("allocationId", resource.NewNullProperty))
		}
	case "aws:iam/role:Role":
		set("uniqueId", g.keep("uniqueId", func() resource.PropertyValue { return s("AROA" + strings.ToUpper(randHex(17))) }))
		set("path", s("/"))
		set("maxSessionDuration", resource.NewNumberProperty(3600))
	case "aws:eks/cluster:Cluster":
		eksClusterOutputs(g, region, set)
	case "aws:eks/nodeGroup:NodeGroup":
		set("status", s("ACTIVE"))
		set("capacityType", s("ON_DEMAND"))
		set("amiType", s("AL2023_x86_64_STANDARD"))
		set("diskSize", resource.NewNumberProperty(20))
		set("instanceTypes", resource.NewArrayProperty([]resource.PropertyValue{s("t3.medium")}))
		set("resources", g.keep("resources", func() resource.PropertyValue {
			asg := resource.NewObjectProperty(resource.PropertyMap{"name": s("eks-" + str("nodeGroupName") + "-" + uuid.NewString())})
			return resource.NewArrayProperty([]resource.PropertyValue{resource.NewObjectProperty(resource.PropertyMap{
				"autoscalingGroups": resource.NewArrayProperty([]resource.PropertyValue{asg}), "remoteAccessSecurityGroupId": s(""),
			})})
		}))
	case "aws:ecr/repository:Repository":
		set("imageTagMutability", s("MUTABLE"))
		if n := Plain(inputs["name"]); n.IsString() {
			set("repositoryUrl", s(fmt.Sprintf("%s.dkr.ecr.%s.amazonaws.com/%s", AccountID, region, n.StringValue())))
		} else { // unknown in preview
			set("repositoryUrl", g.keep("repositoryUrl", resource.NewNullProperty))
		}
	}
}

// idOutputs sets the outputs that are a new resource's ID: an Elastic IP's
// allocationId (eipalloc-…), which a NAT gateway's allocationId takes.
func (c *awsCloud) idOutputs(typ, id string, outs resource.PropertyMap) {
	if typ == "aws:ec2/eip:Eip" {
		outs["allocationId"] = resource.NewStringProperty(id)
	}
}

// eksClusterOutputs sets the outputs of an EKS cluster: its endpoint, a
// certificate authority holding a real self-signed CA certificate, status,
// version, platform version, cluster ID and OIDC issuer.
func eksClusterOutputs(g *gen, region string, set func(resource.PropertyKey, resource.PropertyValue)) {
	s := resource.NewStringProperty
	host := strings.ToUpper(randHex(32))
	set("endpoint", g.keep("endpoint", func() resource.PropertyValue {
		return s(fmt.Sprintf("https://%s.gr7.%s.eks.amazonaws.com", host, region))
	}))
	set("certificateAuthority", g.keep("certificateAuthority", func() resource.PropertyValue {
		return resource.NewObjectProperty(resource.PropertyMap{"data": s(base64.StdEncoding.EncodeToString(caPEM()))})
	}))
	set("status", s("ACTIVE"))
	set("version", s("1.33"))
	set("platformVersion", s("eks.9"))
	set("clusterId", g.keep("clusterId", func() resource.PropertyValue { return s(uuid.NewString()) }))
	set("identities", g.keep("identities", func() resource.PropertyValue {
		oidc := resource.NewObjectProperty(resource.PropertyMap{
			"issuer": s(fmt.Sprintf("https://oidc.eks.%s.amazonaws.com/id/%s", region, host)),
		})
		return resource.NewArrayProperty([]resource.PropertyValue{resource.NewObjectProperty(resource.PropertyMap{
			"oidcs": resource.NewArrayProperty([]resource.PropertyValue{oidc}),
		})})
	}))
}

// awsARN returns a plausible ARN of a resource named name of an aws type.
func awsARN(module, typeName, region, name string) string {
	kind := strings.ToLower(typeName)
	switch module {
	case "iam":
		region = ""
	case "eks":
		if kind == "nodegroup" {
			cluster, ng, _ := strings.Cut(name, ":")
			name = cluster + "/" + ng + "/" + uuid.NewString()
		}
	case "ecr":
		kind = "repository"
	}
	return fmt.Sprintf("arn:aws:%s:%s:%s:%s/%s", module, region, AccountID, kind, name)
}

// randomIP returns a random IPv4 address in first.0.0.0/8.
func randomIP(first string) string {
	parts := []string{first}
	for range 3 {
		n, _ := rand.Int(rand.Reader, big.NewInt(254))
		parts = append(parts, fmt.Sprint(n.Int64()+1))
	}
	return strings.Join(parts, ".")
}
