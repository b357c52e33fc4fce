package hostileclouds

import "testing"

// The vpc project gave its NAT gateway no Elastic IP (the fake returned
// the Eip's allocationId as null, and AWS refuses a public NAT gateway
// without one), and destroy -p aws never finished: the fake took the NAT
// gateway's Name tag (the cluster's name) for a reference to the cluster.
func TestAWSNATGatewayHasItsElasticIPAndDestroyEmptiesTheCloud(t *testing.T) {
	e := newEnv(t)
	e.maraStack()
	e.ok("-p", "aws", "up", "--yes")
	var eip, nat *string
	for _, r := range e.list() {
		id, alloc := r.ID, r.Inputs["allocationId"]
		switch r.Type {
		case "aws:ec2/eip:Eip":
			eip = &id
		case "aws:ec2/natGateway:NatGateway":
			s, _ := alloc.(string)
			nat = &s
		}
	}
	if eip == nil || nat == nil || *nat != *eip {
		t.Fatalf("the NAT gateway's allocationId is %v, want the Elastic IP %v", deref(nat), deref(eip))
	}
	e.ok("-p", "aws", "destroy", "--yes")
	if left := e.list(); len(left) != 0 {
		t.Fatalf("destroy left %d resources in the cloud, first %s %s", len(left), left[0].Type, left[0].ID)
	}
	e.ok("-p", "aws", "destroy", "--yes") // twice: nothing to do, no error
}

func deref(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}
