package hostileclouds

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runner eks-token as kubectl runs it. A missing flag printed the help on
// stdout (where kubectl reads the credential) and exited 1, not 2; a
// region holding a URL signed a token for another host; a --profile (the
// kubeconfig's, from aws:profile) lost to AWS_ACCESS_KEY_ID, so the token
// could name another identity than the one that made the cluster (a
// profile found nowhere leaves the environment's keys).
func TestEKSTokenCommand(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(filepath.Join(e.home, ".aws"), 0o700); err != nil {
		t.Fatal(err)
	}
	creds := "[ops]\naws_access_key_id = AKIAOPSPROFILE000000\naws_secret_access_key = ops-secret\n"
	if err := os.WriteFile(filepath.Join(e.home, ".aws", "credentials"), []byte(creds), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // in the token's URL (code 0) or in stderr
	}{
		{"no cluster", []string{"--region", "us-west-1"}, 2, "--cluster-name"},
		{"no region", []string{"--cluster-name", "c"}, 2, "--region"},
		{"a URL for a region", []string{"--cluster-name", "c", "--region", "evil.example.com/x?"}, 2, "is not an AWS region"},
		{"environment keys", []string{"--cluster-name", "c", "--region", "us-west-1"}, 0, "X-Amz-Credential=AKIAHOSTILE000000000"},
		{"the given profile", []string{"--cluster-name", "c", "--region", "us-west-1", "--profile", "ops"}, 0, "X-Amz-Credential=AKIAOPSPROFILE000000"},
		{"a profile found nowhere", []string{"--cluster-name", "c", "--region", "us-west-1", "--profile", "nope"}, 0, "X-Amz-Credential=AKIAHOSTILE000000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.run("", append([]string{"eks-token"}, tc.args...)...)
			if r.Code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:%s\nstderr:%s", r.Code, tc.code, r.Stdout, r.Stderr)
			}
			if tc.code != 0 {
				if r.Stdout != "" || !strings.Contains(r.Stderr, tc.want) {
					t.Errorf("stdout %q, stderr %q; want nothing on stdout and %q", r.Stdout, r.Stderr, tc.want)
				}
				return
			}
			var cred struct {
				Status struct{ Token string } `json:"status"`
			}
			if err := json.Unmarshal([]byte(r.Stdout), &cred); err != nil {
				t.Fatalf("not an ExecCredential: %v\n%s", err, r.Stdout)
			}
			u, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(cred.Status.Token, "k8s-aws-v1."))
			if err != nil || !strings.Contains(string(u), tc.want) {
				t.Errorf("token URL %s (%v), want %s", u, err, tc.want)
			}
		})
	}
}
