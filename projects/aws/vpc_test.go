package aws_test

import (
	"reflect"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/projects/aws/vpc"
)

func TestVPC(t *testing.T) {
	tests := []struct {
		name string
		cfg  map[string]any
		err  string
	}{
		{"YAML list", map[string]any{"vpc:azs": []any{"us-west-1a", "us-west-1b"}}, ""},
		{"comma-separated", map[string]any{"vpc:azs": "us-west-1a, us-west-1b"}, ""},
		{"own range", map[string]any{"vpc:azs": "us-west-1a,us-west-1b", "vpc:cidr": "10.0.0.0/16"}, ""},
		{"no zones", map[string]any{}, "vpc:azs is missing"},
		{"secret zones", map[string]any{"vpc:azs": resource.Secret{Element: "us-west-1a"}}, "vpc:azs is secret"},
		{"bad range", map[string]any{"vpc:azs": "us-west-1a", "vpc:cidr": "10.0.0.0/8"}, "vpc:cidr must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := deploy(t, vpc.Program, tt.cfg, nil, false)
			wantErr(t, err, tt.err)
			if tt.err != "" {
				return
			}
			counts := map[string]int{"aws:ec2/vpc:Vpc": 1, "aws:ec2/subnet:Subnet": 4, "aws:ec2/internetGateway:InternetGateway": 1,
				"aws:ec2/eip:Eip": 1, "aws:ec2/natGateway:NatGateway": 1, "aws:ec2/routeTable:RouteTable": 2,
				"aws:ec2/route:Route": 2, "aws:ec2/routeTableAssociation:RouteTableAssociation": 4}
			for typ, n := range counts {
				if got := len(d.ofType(typ)); got != n {
					t.Errorf("%d of %s, want %d", got, typ, n)
				}
			}
			if d.inputs["vpc"]["enableDnsHostnames"] != true || d.inputs["vpc"]["enableDnsSupport"] != true {
				t.Errorf("vpc inputs %v", d.inputs["vpc"])
			}
			pub, priv := d.inputs["public-us-west-1b"], d.inputs["private-us-west-1b"]
			pubTags, privTags := pub["tags"].(map[string]any), priv["tags"].(map[string]any)
			if pubTags["kubernetes.io/role/elb"] != "1" || privTags["kubernetes.io/role/internal-elb"] != "1" ||
				pubTags["kubernetes.io/cluster/mara-dev"] != "shared" || privTags["kubernetes.io/cluster/mara-dev"] != "shared" {
				t.Errorf("subnet tags %v %v", pubTags, privTags)
			}
			if pub["availabilityZone"] != "us-west-1b" || pub["mapPublicIpOnLaunch"] != true || priv["mapPublicIpOnLaunch"] != false {
				t.Errorf("subnets %v %v", pub, priv)
			}
			if tt.name == "own range" && (pub["cidrBlock"] != "10.0.1.0/24" || priv["cidrBlock"] != "10.0.32.0/20") {
				t.Errorf("subnet ranges %v %v", pub["cidrBlock"], priv["cidrBlock"])
			} else if tt.name != "own range" && pub["cidrBlock"] != "10.100.1.0/24" {
				t.Errorf("MARA's range: %v", pub["cidrBlock"])
			}
			if d.inputs["nat-ip"]["domain"] != "vpc" || d.inputs["nat"]["allocationId"] != "allocationId-of-nat-ip" ||
				d.inputs["public-default"]["gatewayId"] != "id-internet-gateway" ||
				d.inputs["private-default"]["natGatewayId"] != "id-nat" ||
				d.inputs["private-default"]["destinationCidrBlock"] != "0.0.0.0/0" ||
				d.inputs["private-us-west-1a-association"]["routeTableId"] != "id-private" {
				t.Errorf("gateways and routes: %v", d.inputs)
			}
			want := resource.PropertyMap{
				"vpc_id": "id-vpc", "azs": []any{"us-west-1a", "us-west-1b"}, "cidr": d.inputs["vpc"]["cidrBlock"],
				"public_subnet_ids":  []any{"id-public-us-west-1a", "id-public-us-west-1b"},
				"private_subnet_ids": []any{"id-private-us-west-1a", "id-private-us-west-1b"},
			}
			if !reflect.DeepEqual(d.outputs, want) {
				t.Errorf("outputs %v\nwant %v", d.outputs, want)
			}
		})
	}
}

func TestVPCPreview(t *testing.T) {
	d, err := deploy(t, vpc.Program, map[string]any{"vpc:azs": "us-east-1a"}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.outputs["vpc_id"].(resource.Computed); !ok {
		t.Errorf("vpc_id in preview: %v", d.outputs["vpc_id"])
	}
	if len(d.ofType("aws:ec2/subnet:Subnet")) != 2 {
		t.Errorf("preview declares %v", d.types)
	}
}
