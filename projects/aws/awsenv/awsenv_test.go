package awsenv

import (
	"reflect"
	"strings"
	"testing"
)

func TestSubnets(t *testing.T) {
	tests := []struct {
		cidr         string
		n            int
		public, priv []string
		err          string
	}{
		{"10.100.0.0/16", 2, []string{"10.100.0.0/24", "10.100.1.0/24"}, []string{"10.100.16.0/20", "10.100.32.0/20"}, ""},
		{"10.0.0.0/16", 15, nil, nil, ""},
		{"172.16.16.0/20", 1, []string{"172.16.16.0/28"}, []string{"172.16.17.0/24"}, ""},
		{"10.0.0.0/8", 2, nil, nil, "from /16 to /20"},
		{"10.0.0.1/16", 2, nil, nil, "host bits set"},
		{"fd00::/56", 2, nil, nil, "IPv4"},
		{"nonsense", 2, nil, nil, "vpc:cidr must be"},
		{"10.0.0.0/16", 16, nil, nil, "room for 1 to 15 zones, not 16"},
	}
	for _, tt := range tests {
		pub, priv, err := Subnets(tt.cidr, tt.n)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s x%d: error %v, want %q", tt.cidr, tt.n, err, tt.err)
			}
			continue
		}
		if err != nil || len(pub) != tt.n || len(priv) != tt.n {
			t.Fatalf("%s x%d: %v %v %v", tt.cidr, tt.n, pub, priv, err)
		}
		if tt.public != nil && (!reflect.DeepEqual(pub, tt.public) || !reflect.DeepEqual(priv, tt.priv)) {
			t.Errorf("%s: %v %v, want %v %v", tt.cidr, pub, priv, tt.public, tt.priv)
		}
	}
	// No two subnets of the largest plan overlap.
	pub, priv, _ := Subnets("10.0.0.0/16", 15)
	seen := map[string]bool{}
	for _, s := range append(pub, priv...) {
		if seen[s] {
			t.Fatalf("subnet %s twice", s)
		}
		seen[s] = true
	}
	if priv[14] != "10.0.240.0/20" || pub[14] != "10.0.14.0/24" {
		t.Errorf("last subnets %s %s", pub[14], priv[14])
	}
}

func TestZones(t *testing.T) {
	tests := []struct {
		v    any
		want []string
		err  string
	}{
		{"us-east-1a, us-east-1b", []string{"us-east-1a", "us-east-1b"}, ""},
		{[]any{"us-west-1a", "us-west-1b"}, []string{"us-west-1a", "us-west-1b"}, ""},
		{"", nil, "names no availability zone"},
		{[]any{"us-west-1a", 3}, nil, "vpc:azs[1]"},
		{map[string]any{}, nil, "must be a list"},
	}
	for _, tt := range tests {
		got, err := Zones(tt.v)
		if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) || tt.err == "" && (err != nil || !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("Zones(%v) = %v, %v; want %v %q", tt.v, got, err, tt.want, tt.err)
		}
	}
}

func TestNames(t *testing.T) {
	for stack, want := range map[string][2]string{
		"dev":        {"mara-dev", "ingress-controller-dev"},
		"My.Stack_1": {"mara-My-Stack-1", "ingress-controller-my-stack-1"},
		"x.":         {"mara-x", "ingress-controller-x"},
	} {
		if got := ClusterName(stack); got != want[0] {
			t.Errorf("ClusterName(%q) = %q, want %q", stack, got, want[0])
		}
		if got := RepositoryName(stack); got != want[1] {
			t.Errorf("RepositoryName(%q) = %q, want %q", stack, got, want[1])
		}
	}
	if n := ClusterName(strings.Repeat("a", 200)); len(n) != 100 {
		t.Errorf("a long stack name gives a cluster name of %d characters", len(n))
	}
}
