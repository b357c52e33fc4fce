package eks

import "testing"

func TestPartition(t *testing.T) {
	for region, want := range map[string]string{
		"us-east-1": "aws", "eu-west-1": "aws", "us-gov-west-1": "aws-us-gov", "cn-north-1": "aws-cn", "cn-northwest-1": "aws-cn",
	} {
		if got := partition(region); got != want {
			t.Errorf("partition(%s) = %s, want %s", region, got, want)
		}
	}
}
