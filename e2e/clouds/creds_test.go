package clouds

import "testing"

// TestMissingAWSCredentials: without AWS credentials (none in the
// environment, MARA's profile nowhere, or no profile at all) up -p aws
// is refused before anything changes, exit 3, with the aws plugin's
// refusal and runner's own message saying what to set. (validate first
// saves the config's defaults, so that only up's doing is judged.)
func TestMissingAWSCredentials(t *testing.T) {
	cases := []struct {
		name    string
		profile bool // keep MARA's aws:profile myProfile
		want    []string
	}{
		{"no credentials", false, []string{"No valid credential sources found", "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", "aws:profile"}},
		{"MARA's profile missing", true, []string{"failed to get shared config profile, myProfile", "aws:profile"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := maraWorkspace(t)
			if !c.profile {
				e.ok("config", "rm", "aws:profile")
			}
			e.aws = []string{"AWS_REGION=us-west-1"}
			e.ok("-p", "aws", "validate")
			refused(t, e, "aws", c.want)
		})
	}
}
