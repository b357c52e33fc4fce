package plugins

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
)

// AccountID is the AWS account of the fake cloud.
const AccountID = "123456789012"

// EnvECRImages names the environment variable that, set to 1, makes every
// ECR repository hold images: deleting one fails unless forceDelete is true.
const EnvECRImages = "FAKECLOUD_ECR_IMAGES"

// ec2Prefixes are the ID prefixes of EC2 resources by type name.
var ec2Prefixes = map[string]string{
	"Vpc": "vpc", "Subnet": "subnet", "InternetGateway": "igw", "NatGateway": "nat", "Eip": "eipalloc",
	"RouteTable": "rtb", "RouteTableAssociation": "rtbassoc", "SecurityGroup": "sg", "NetworkAcl": "acl",
	"LaunchTemplate": "lt", "Instance": "i", "VpcEndpoint": "vpce", "Route": "r-rtb",
	"EgressOnlyInternetGateway": "eigw", "NetworkInterface": "eni", "KeyPair": "key",
}

// awsForceNew are inputs whose change replaces an aws resource.
var awsForceNew = map[resource.PropertyKey]bool{
	"name": true, "namePrefix": true, "nodeGroupName": true, "clusterName": true, "vpcId": true,
	"subnetId": true, "cidrBlock": true, "availabilityZone": true, "role": true, "policyArn": true,
	"allocationId": true, "connectivityType": true, "routeTableId": true,
}

// awsCloud is the fake aws provider.
type awsCloud struct {
	contract *Contract
	mu       sync.Mutex
	region   string
}

func (c *awsCloud) configKeys() []string {
	keys := make([]string, 0, len(c.contract.Config))
	for k := range c.contract.Config {
		keys = append(keys, k)
	}
	return keys
}

func (c *awsCloud) checkConfig(cfg config) []plugin.CheckFailure {
	_, err := awsSettings(cfg)
	return failure(err)
}

func (c *awsCloud) configure(cfg config) error {
	region, err := awsSettings(cfg)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.region = region
	c.mu.Unlock()
	return nil
}

// fill autonames name (nodeGroupName for an EKS node group) when the
// contract has it, it is not required and the program gave none.
func (c *awsCloud) fill(typ string, req plugin.CheckRequest, news resource.PropertyMap) {
	key := resource.PropertyKey("name")
	if typ == "aws:eks/nodeGroup:NodeGroup" {
		key = "nodeGroupName"
	}
	in, ok := c.contract.Resources[typ].Inputs[string(key)]
	if !ok || in.Required || !news[key].IsNull() || !news["namePrefix"].IsNull() {
		return
	}
	news[key] = autoname(req, req.Olds[key])
}

// typeName returns the module and type name of an aws token
// ("aws:eks/cluster:Cluster" → "eks", "Cluster").
func typeName(typ string) (module, name string) {
	parts := strings.Split(typ, ":")
	if len(parts) != 3 {
		return "", typ
	}
	module, _, _ = strings.Cut(parts[1], "/")
	return module, parts[2]
}

func (c *awsCloud) newID(typ string, inputs resource.PropertyMap) string {
	module, name := typeName(typ)
	str := func(k resource.PropertyKey) string {
		if v := Plain(inputs[k]); v.IsString() {
			return v.StringValue()
		}
		return ""
	}
	switch {
	case module == "ec2" && ec2Prefixes[name] != "":
		return ec2Prefixes[name] + "-" + randHex(17)
	case typ == "aws:eks/nodeGroup:NodeGroup":
		return str("clusterName") + ":" + str("nodeGroupName")
	case typ == "aws:iam/rolePolicyAttachment:RolePolicyAttachment":
		return str("role") + "-" + randHex(26)
	case str("name") != "":
		return str("name")
	}
	return strings.ToLower(name) + "-" + randHex(17)
}

func (c *awsCloud) replaces(_ string, key resource.PropertyKey, _, _ resource.PropertyMap) bool {
	return awsForceNew[key]
}

// beforeDelete refuses, as AWS does, to delete an ECR repository holding
// images without forceDelete (FAKECLOUD_ECR_IMAGES=1 fills every
// repository) and a resource another one still refers to by ID or ARN.
func (c *awsCloud) beforeDelete(s *store, rec *Record, outs resource.PropertyMap) error {
	force := Plain(outs["forceDelete"])
	if rec.Type == "aws:ecr/repository:Repository" && os.Getenv(EnvECRImages) == "1" && !(force.IsBool() && force.BoolValue()) {
		return fmt.Errorf("deleting ECR Repository (%s): RepositoryNotEmptyException: The repository with name '%s' in registry with id '%s' cannot be deleted because it still contains images",
			rec.ID, rec.ID, AccountID)
	}
	refs := []string{rec.ID}
	if arn := Plain(outs["arn"]); arn.IsString() {
		refs = append(refs, arn.StringValue())
	}
	all, err := s.all()
	if err != nil {
		return err
	}
	for _, other := range all {
		if other.Type == rec.Type && other.ID == rec.ID {
			continue
		}
		if mentions(withoutTags(other.Inputs), refs) {
			return fmt.Errorf("DependencyViolation: %s %s has a dependent object: %s %s (%s) still refers to it",
				rec.Type, rec.ID, other.Type, other.ID, other.URN)
		}
	}
	return nil
}

// check refuses what AWS refuses beyond the contract: a public NAT gateway
// without the allocation ID of its Elastic IP (unknown passes).
func (c *awsCloud) check(typ string, news resource.PropertyMap) []plugin.CheckFailure {
	if typ != "aws:ec2/natGateway:NatGateway" {
		return nil
	}
	ct := Plain(news["connectivityType"])
	if (ct.IsNull() || (ct.IsString() && ct.StringValue() == "public")) && Plain(news["allocationId"]).IsNull() {
		return []plugin.CheckFailure{{Property: "allocationId",
			Reason: "InvalidParameter: a public NAT gateway needs the allocation ID of an Elastic IP"}}
	}
	return nil
}

// withoutTags returns inputs without tags: a tag naming a resource (the
// cluster tags of subnets, say) is no dependency in AWS.
func withoutTags(inputs map[string]any) map[string]any {
	out := make(map[string]any, len(inputs))
	for k, v := range inputs {
		if k != "tags" && k != "tagsAll" {
			out[k] = v
		}
	}
	return out
}

// mentions reports whether v holds one of refs as a string, at any depth.
func mentions(v any, refs []string) bool {
	switch v := v.(type) {
	case string:
		for _, r := range refs {
			if v == r {
				return true
			}
		}
	case map[string]any:
		for _, e := range v {
			if mentions(e, refs) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if mentions(e, refs) {
				return true
			}
		}
	}
	return false
}

// randHex returns n random lower-case hex digits.
func randHex(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:n]
}
