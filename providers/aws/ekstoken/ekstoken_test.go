package ekstoken

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

var exampleCreds = aws.Credentials{AccessKeyID: "AKIAIOSFODNN7EXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}

func decode(t *testing.T, token string) *url.URL {
	t.Helper()
	if !strings.HasPrefix(token, Prefix) {
		t.Fatalf("token %q lacks %s", token, Prefix)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(token, Prefix))
	if err != nil {
		t.Fatalf("token is not unpadded base64url: %v", err)
	}
	u, err := url.Parse(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestToken checks the presigned URL as EKS's authenticator and STS check
// it: STS's host in the region, GetCallerIdentity, X-Amz-Expires 60, the
// cluster's name in the signed header x-k8s-aws-id, and a signature that
// verifies with the secret key.
func TestToken(t *testing.T) {
	now := time.Date(2026, 11, 3, 10, 20, 30, 0, time.UTC)
	tests := []struct {
		name  string
		creds aws.Credentials
		want  map[string]string // query parameters
	}{
		{"static keys", exampleCreds, map[string]string{
			"Action": "GetCallerIdentity", "Version": "2011-06-15", "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
			"X-Amz-Credential": "AKIAIOSFODNN7EXAMPLE/20261103/eu-west-1/sts/aws4_request",
			"X-Amz-Date":       "20261103T102030Z", "X-Amz-Expires": "60", "X-Amz-SignedHeaders": "host;x-k8s-aws-id",
			"X-Amz-Security-Token": ""}},
		{"session token", aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "SECRET", SessionToken: "TOKEN/+="}, map[string]string{
			"X-Amz-Security-Token": "TOKEN/+=", "X-Amz-Credential": "AKID/20261103/eu-west-1/sts/aws4_request",
			"X-Amz-Expires": "60", "X-Amz-SignedHeaders": "host;x-k8s-aws-id"}},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := Token(ctx, "mara-dev", "eu-west-1", tt.creds, now)
			if err != nil {
				t.Fatal(err)
			}
			u := decode(t, tok)
			if u.Scheme != "https" || u.Host != "sts.eu-west-1.amazonaws.com" || u.Path != "/" {
				t.Fatalf("token URL %s", u)
			}
			q := u.Query()
			for k, v := range tt.want {
				if q.Get(k) != v {
					t.Errorf("%s = %q, want %q", k, q.Get(k), v)
				}
			}
			r := signedRequest{Method: "GET", Host: u.Host, Path: u.Path, Query: q,
				Header: http.Header{"X-K8s-Aws-Id": {"mara-dev"}}, PayloadHash: hexSHA256(nil)}
			if got := r.signature(tt.creds.SecretAccessKey); got != q.Get("X-Amz-Signature") {
				t.Errorf("signature %s does not verify (want %s)", q.Get("X-Amz-Signature"), got)
			}
			r.Header.Set(ClusterHeader, "other")
			if r.signature(tt.creds.SecretAccessKey) == q.Get("X-Amz-Signature") {
				t.Error("the cluster name is not signed")
			}
			china, _ := Token(ctx, "mara-dev", "cn-north-1", tt.creds, now)
			if u := decode(t, china); u.Host != "sts.cn-north-1.amazonaws.com.cn" {
				t.Errorf("token URL in China %s", u)
			}
		})
	}
	// EKS calls STS's own host only: an endpoint set for the SDK's other
	// STS calls does not move the token's.
	t.Setenv("AWS_ENDPOINT_URL_STS", "http://127.0.0.1:9")
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
	if tok, err := Token(ctx, "c", "us-east-1", exampleCreds, now); err != nil || decode(t, tok).Host != "sts.us-east-1.amazonaws.com" {
		t.Errorf("with AWS_ENDPOINT_URL_STS: %v %v", err, tok)
	}
	if _, err := Token(ctx, "", "us-east-1", exampleCreds, now); err == nil || !strings.Contains(err.Error(), "--cluster-name") {
		t.Errorf("no cluster: %v", err)
	}
	if _, err := Token(ctx, "c", "", exampleCreds, now); err == nil || !strings.Contains(err.Error(), "--region") {
		t.Errorf("no region: %v", err)
	}
	// The region becomes the STS host name: a URL in it signed a token
	// for another host.
	for _, bad := range []string{"us-west-1/../x?y#", "evil.example.com/", "US-WEST-1", "us-west-1 "} {
		if _, err := Token(ctx, "c", bad, exampleCreds, now); err == nil || !strings.Contains(err.Error(), "is not an AWS region") {
			t.Errorf("region %q: %v", bad, err)
		}
	}
	for _, good := range []string{"us-gov-west-1", "cn-north-1", "ap-southeast-2", "il-central-1"} {
		if _, err := Token(ctx, "c", good, exampleCreds, now); err != nil {
			t.Errorf("region %q: %v", good, err)
		}
	}
}

func TestExecCredential(t *testing.T) {
	now := time.Date(2026, 11, 3, 10, 20, 30, 0, time.FixedZone("CET", 3600))
	b, err := ExecCredential("k8s-aws-v1.abc", now)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	status, _ := got["status"].(map[string]any)
	if got["kind"] != "ExecCredential" || got["apiVersion"] != "client.authentication.k8s.io/v1beta1" ||
		status["token"] != "k8s-aws-v1.abc" || status["expirationTimestamp"] != "2026-11-03T09:34:30Z" {
		t.Fatalf("ExecCredential %s", b)
	}
	if _, ok := got["spec"].(map[string]any); !ok {
		t.Fatalf("no spec object: %s", b)
	}
}

// isolate gives the test an environment with no AWS settings but env, and
// HOME set to home; the instance metadata service is off unless env sets
// it. The instance metadata service is off unless env sets
// AWS_EC2_METADATA_DISABLED.
func isolate(t *testing.T, home string, env map[string]string) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	t.Setenv("HOME", home)
	// The SDK takes its default file names from HOME once, when it starts.
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(home, ".aws", "credentials"))
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(home, ".aws", "config"))
	if _, ok := env["AWS_EC2_METADATA_DISABLED"]; !ok {
		t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
}

// writeFiles writes files (relative path: text) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCredentials(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{
		".aws/credentials": "[default]\naws_access_key_id = DEF\naws_secret_access_key = defsecret\n\n" +
			"[ops]\n# a comment\naws_access_key_id=OPS\naws_secret_access_key=opssecret\naws_session_token=opstoken\n" +
			"[assume]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = default\n",
		".aws/config": "[profile half]\naws_access_key_id = HALF\n[profile regiononly]\nregion = eu-west-1\ns3 =\n  aws_access_key_id = NESTED\n  aws_secret_access_key = nested\n" +
			"[profile sso]\nsso_session = corp\n[profile cfgkeys]\naws_access_key_id = CFG\naws_secret_access_key = cfgsecret\n",
		"alt": "[default]\naws_access_key_id = ALT\naws_secret_access_key = altsecret\n",
	})
	envKeys := map[string]string{"AWS_ACCESS_KEY_ID": "ENV", "AWS_SECRET_ACCESS_KEY": "envsecret"}
	tests := []struct {
		name    string
		env     map[string]string
		profile string
		want    string // access key id
		err     string
	}{
		{"environment first", map[string]string{"AWS_ACCESS_KEY_ID": "ENV", "AWS_SECRET_ACCESS_KEY": "envsecret", "AWS_SESSION_TOKEN": "t", "AWS_PROFILE": "ops"}, "",
			"ENV", ""},
		// The eks hook's kubeconfig passes --profile when aws:profile is set:
		// the identity that made the cluster, not the environment's keys.
		{"a given profile wins over the environment", envKeys, "ops", "OPS", ""},
		// As `aws --profile`: a missing profile is refused, never replaced
		// by the environment's keys.
		{"a given profile found nowhere, keys in the environment", envKeys, "nope", "", "the config profile (nope) could not be found in " + home},
		{"a given profile found nowhere, no keys", nil, "nope", "", "the config profile (nope) could not be found"},
		{"AWS_PROFILE found nowhere", map[string]string{"AWS_PROFILE": "nope"}, "", "", "the config profile (nope) could not be found"},
		{"a given SSO profile", envKeys, "sso", "", "profile sso"},
		{"default profile", nil, "", "DEF", ""},
		{"named profile", nil, "ops", "OPS", ""},
		{"AWS_PROFILE", map[string]string{"AWS_PROFILE": "ops"}, "", "OPS", ""},
		{"config file keys", nil, "cfgkeys", "CFG", ""},
		{"other credentials file", map[string]string{"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "alt")}, "", "ALT", ""},
		{"assume role, STS unreachable", map[string]string{"AWS_ENDPOINT_URL_STS": "http://127.0.0.1:1"}, "assume", "",
			"finding the AWS credentials of profile assume: "},
		{"nothing anywhere", map[string]string{"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "none"), "AWS_CONFIG_FILE": filepath.Join(home, "none")}, "", "",
			"no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give profile default credentials in " + filepath.Join(home, "none")},
		{"half a key pair", nil, "half", "", "profile half sets only one of aws_access_key_id and aws_secret_access_key"},
		{"a FIFO for a config file", map[string]string{"AWS_CONFIG_FILE": filepath.Join(home, "fifo")}, "", "", "it is a named pipe, not a regular file"},
		{"a profile without credentials", envKeys, "regiononly", "", "profile regiononly has no credentials in " + filepath.Join(home, ".aws", "credentials")},
	}
	if err := syscall.Mkfifo(filepath.Join(home, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolate(t, home, tt.env)
			got, err := Credentials(context.Background(), tt.profile, "us-east-1", time.Now())
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				for _, secret := range []string{"defsecret", "opssecret", "envsecret", "cfgsecret", "altsecret"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("the error shows secret %q: %v", secret, err)
					}
				}
				return
			}
			if err != nil || got.AccessKeyID != tt.want {
				t.Fatalf("got %+v, %v; want %s", got.AccessKeyID, err, tt.want)
			}
		})
	}
}
