// Package vpc is the aws provider's network: a VPC (vpc:cidr, MARA's
// 10.100.0.0/16 by default), a public and a private subnet in every zone of
// vpc:azs, an internet gateway for the public subnets and one NAT gateway
// (with its elastic IP) for the private ones, their route tables, and the
// subnet tags that EKS and its load balancers look for.
package vpc

import (
	"errors"
	"fmt"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/projects/aws/awsenv"
)

// The resource types the program declares (Pulumi's aws provider).
const (
	vpcType         = "aws:ec2/vpc:Vpc"
	subnetType      = "aws:ec2/subnet:Subnet"
	gatewayType     = "aws:ec2/internetGateway:InternetGateway"
	eipType         = "aws:ec2/eip:Eip"
	natType         = "aws:ec2/natGateway:NatGateway"
	routeTableType  = "aws:ec2/routeTable:RouteTable"
	routeType       = "aws:ec2/route:Route"
	associationType = "aws:ec2/routeTableAssociation:RouteTableAssociation"
)

// Program declares the network. Outputs: vpc_id, public_subnet_ids and
// private_subnet_ids (lists, in the order of azs), azs (the zones) and
// cidr.
func Program(ctx *engine.Context) error {
	zones, cidr, err := settings(ctx)
	if err != nil {
		return err
	}
	public, private, err := awsenv.Subnets(cidr, len(zones))
	if err != nil {
		return err
	}
	stack := ctx.Stack()
	shared := map[string]any{"kubernetes.io/cluster/" + awsenv.ClusterName(stack): "shared"}
	vpc := ctx.Resource(vpcType, "vpc", engine.Inputs{
		"cidrBlock": cidr, "enableDnsHostnames": true, "enableDnsSupport": true, "instanceTenancy": "default",
		"tags": awsenv.Tags(ctx, "mara-"+stack, nil),
	})
	vpcID := vpc.ID()
	igw := ctx.Resource(gatewayType, "internet-gateway", engine.Inputs{
		"vpcId": vpcID, "tags": awsenv.Tags(ctx, "mara-"+stack, nil),
	})

	var publicIDs, privateIDs []any
	var publicSubnets, privateSubnets []*engine.Resource
	for i, zone := range zones {
		pub := ctx.Resource(subnetType, "public-"+zone, engine.Inputs{
			"vpcId": vpcID, "availabilityZone": zone, "cidrBlock": public[i], "mapPublicIpOnLaunch": true,
			"tags": awsenv.Tags(ctx, fmt.Sprintf("mara-%s-public-%s", stack, zone), merge(shared, "kubernetes.io/role/elb")),
		})
		priv := ctx.Resource(subnetType, "private-"+zone, engine.Inputs{
			"vpcId": vpcID, "availabilityZone": zone, "cidrBlock": private[i], "mapPublicIpOnLaunch": false,
			"tags": awsenv.Tags(ctx, fmt.Sprintf("mara-%s-private-%s", stack, zone), merge(shared, "kubernetes.io/role/internal-elb")),
		})
		publicSubnets, privateSubnets = append(publicSubnets, pub), append(privateSubnets, priv)
		publicIDs, privateIDs = append(publicIDs, pub.ID()), append(privateIDs, priv.ID())
	}

	// One NAT gateway, in the first zone's public subnet, as MARA's
	// single-gateway layout: the private subnets of every zone go out
	// through it.
	eip := ctx.Resource(eipType, "nat-ip", engine.Inputs{
		"domain": "vpc", "tags": awsenv.Tags(ctx, "mara-"+stack+"-nat", nil),
	}, engine.DependsOn(igw))
	nat := ctx.Resource(natType, "nat", engine.Inputs{
		"allocationId": eip.Output("allocationId"), "subnetId": publicSubnets[0].ID(), "connectivityType": "public",
		"tags": awsenv.Tags(ctx, "mara-"+stack, nil),
	}, engine.DependsOn(igw))

	routes(ctx, "public", vpcID, "gatewayId", igw.ID(), zones, publicSubnets)
	routes(ctx, "private", vpcID, "natGatewayId", nat.ID(), zones, privateSubnets)

	ctx.Export("vpc_id", vpcID)
	ctx.Export("public_subnet_ids", publicIDs)
	ctx.Export("private_subnet_ids", privateIDs)
	azs := make([]any, len(zones))
	for i, z := range zones {
		azs[i] = z
	}
	ctx.Export("azs", azs)
	ctx.Export("cidr", cidr)
	return nil
}

// routes declares the route table of kind (public, private) whose default
// route goes to the target (gatewayId or natGatewayId), and associates it
// with the subnets.
func routes(ctx *engine.Context, kind string, vpcID engine.Output, targetKey string, target engine.Output, zones []string, subnets []*engine.Resource) {
	table := ctx.Resource(routeTableType, kind, engine.Inputs{
		"vpcId": vpcID, "tags": awsenv.Tags(ctx, fmt.Sprintf("mara-%s-%s", ctx.Stack(), kind), nil),
	})
	ctx.Resource(routeType, kind+"-default", engine.Inputs{
		"routeTableId": table.ID(), "destinationCidrBlock": "0.0.0.0/0", targetKey: target,
	})
	for i, s := range subnets {
		ctx.Resource(associationType, kind+"-"+zones[i]+"-association", engine.Inputs{
			"routeTableId": table.ID(), "subnetId": s.ID(),
		})
	}
}

// settings reads vpc:azs (required: a list or a comma-separated string)
// and vpc:cidr.
func settings(ctx *engine.Context) ([]string, string, error) {
	v, ok, err := ctx.PlainConfig("vpc:azs")
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "", errors.New("the config value vpc:azs is missing: set the availability zones of the VPC with `runner config set vpc:azs us-east-1a,us-east-1b` (zones of aws:region)")
	}
	zones, err := awsenv.Zones(v)
	if err != nil {
		return nil, "", err
	}
	cidr := awsenv.DefaultCIDR
	if c, ok, err := ctx.PlainConfig("vpc:cidr"); err != nil {
		return nil, "", err
	} else if ok {
		s, isString := c.(string)
		if !isString {
			return nil, "", fmt.Errorf("vpc:cidr must be an IPv4 range such as %s, not %v", awsenv.DefaultCIDR, c)
		}
		cidr = s
	}
	return zones, cidr, nil
}

// merge returns m plus role="1".
func merge(m map[string]any, role string) map[string]any {
	out := map[string]any{role: "1"}
	for k, v := range m {
		out[k] = v
	}
	return out
}
