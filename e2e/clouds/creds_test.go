package clouds

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

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
			// maraWorkspace writes MARA's profile (eks-token signs with
			// it): without credentials means without that file too.
			if err := os.Remove(filepath.Join(e.home, ".aws", "credentials")); err != nil {
				t.Fatal(err)
			}
			if !c.profile {
				e.ok("config", "rm", "aws:profile")
			}
			e.aws = []string{"AWS_REGION=us-west-1"}
			e.ok("-p", "aws", "validate")
			refused(t, e, "aws", c.want)
		})
	}
}

// TestEKSTokenCommand: runner eks-token as kubectl runs it. A missing
// flag printed the help on stdout (where kubectl reads the credential)
// and exited 1, not 2; a region holding a URL signed a token for another
// host; a --profile (the kubeconfig's, from aws:profile) lost to
// AWS_ACCESS_KEY_ID, so the token could name another identity than the
// one that made the cluster. A profile found nowhere, or holding no
// credentials, signed with the environment's keys; as the aws CLI does,
// it is now refused (exit 3, nothing on stdout). (Hostile tester's
// regressions.)
func TestEKSTokenCommand(t *testing.T) {
	e := newEnv(t, "us-west-1")
	var envKey string
	e.aws = slices.DeleteFunc(e.aws, func(kv string) bool { return strings.HasPrefix(kv, "AWS_REGION=") }) // --region only
	for _, kv := range e.aws {
		if k, v, _ := strings.Cut(kv, "="); k == "AWS_ACCESS_KEY_ID" {
			envKey = v
		}
	}
	if envKey == "" {
		t.Fatalf("no AWS_ACCESS_KEY_ID in the test's AWS environment %v", e.aws)
	}
	if err := os.MkdirAll(filepath.Join(e.home, ".aws"), 0o700); err != nil {
		t.Fatal(err)
	}
	creds := "[ops]\naws_access_key_id = AKIAOPSPROFILE000000\naws_secret_access_key = ops-secret\n[regiononly]\nregion = us-west-1\n"
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
		{"environment keys", []string{"--cluster-name", "c", "--region", "us-west-1"}, 0, "X-Amz-Credential=" + envKey},
		{"the given profile", []string{"--cluster-name", "c", "--region", "us-west-1", "--profile", "ops"}, 0, "X-Amz-Credential=AKIAOPSPROFILE000000"},
		{"a profile found nowhere", []string{"--cluster-name", "c", "--region", "us-west-1", "--profile", "nope"}, 3, "the config profile (nope) could not be found"},
		{"a profile without credentials", []string{"--cluster-name", "c", "--region", "us-west-1", "--profile", "regiononly"}, 3, "profile regiononly has no credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.run(append([]string{"eks-token"}, tc.args...)...)
			if r.Code != tc.code {
				t.Fatalf("want exit %d; %s", tc.code, r)
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

// TestEKSTokenInterruptedWhileAskingTheInstance: Ctrl-C while eks-token
// waits on the instance metadata service ended as "no AWS credentials"
// (exit 3), since the SDK's instance provider turns the cancellation into
// a failure of its own; it is exit 130, as for every interrupted command.
func TestEKSTokenInterruptedWhileAskingTheInstance(t *testing.T) {
	hang := make(chan struct{})
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer imds.Close()
	defer close(hang)
	e := newEnv(t, "us-west-1")
	var env []string
	for _, kv := range e.environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "AWS_") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(binary, "eks-token", "--cluster-name", "c", "--region", "us-west-1")
	cmd.Env = append(env, "AWS_EC2_METADATA_SERVICE_ENDPOINT="+imds.URL)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 || stdout.String() != "" {
		t.Fatalf("eks-token interrupted while asking the instance: %v, stdout %q, stderr %q; want exit 130 and nothing on stdout", err, stdout.String(), stderr.String())
	}
}
