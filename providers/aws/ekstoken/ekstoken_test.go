package ekstoken

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var exampleCreds = Credentials{AccessKeyID: "AKIAIOSFODNN7EXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}

// TestPresignAWSExample signs AWS's documented example of a presigned URL
// (Amazon S3 API reference, "Authenticating Requests: Using Query
// Parameters"): GET examplebucket/test.txt on 2013-05-24 for 86400 s.
func TestPresignAWSExample(t *testing.T) {
	got := presign{
		Method: "GET", Host: "examplebucket.s3.amazonaws.com", Path: "/test.txt",
		Region: "us-east-1", Service: "s3", Time: time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC),
		Expires: 86400 * time.Second, PayloadHash: unsignedPayload, Creds: exampleCreds,
	}.URL()
	want := "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256" +
		"&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request" +
		"&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host" +
		"&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
	if got != want {
		t.Fatalf("presigned URL\n got %s\nwant %s", got, want)
	}
}

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

func TestToken(t *testing.T) {
	now := time.Date(2026, 11, 3, 10, 20, 30, 0, time.UTC)
	tests := []struct {
		name  string
		creds Credentials
		want  map[string]string // query parameters
	}{
		{"static keys", exampleCreds, map[string]string{
			"Action": "GetCallerIdentity", "Version": "2011-06-15", "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
			"X-Amz-Credential": "AKIAIOSFODNN7EXAMPLE/20261103/eu-west-1/sts/aws4_request",
			"X-Amz-Date":       "20261103T102030Z", "X-Amz-Expires": "60", "X-Amz-SignedHeaders": "host;x-k8s-aws-id"}},
		{"session token", Credentials{"AKID", "SECRET", "TOKEN/+="}, map[string]string{
			"X-Amz-Security-Token": "TOKEN/+=", "X-Amz-Credential": "AKID/20261103/eu-west-1/sts/aws4_request"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := Token("mara-dev", "eu-west-1", tt.creds, now)
			if err != nil {
				t.Fatal(err)
			}
			u := decode(t, tok)
			if u.Scheme != "https" || u.Host != "sts.eu-west-1.amazonaws.com" || u.Path != "/" {
				t.Fatalf("token URL %s", u)
			}
			china, _ := Token("mara-dev", "cn-north-1", tt.creds, now)
			if u := decode(t, china); u.Host != "sts.cn-north-1.amazonaws.com.cn" {
				t.Errorf("token URL in China %s", u)
			}
			q := u.Query()
			for k, v := range tt.want {
				if q.Get(k) != v {
					t.Errorf("%s = %q, want %q", k, q.Get(k), v)
				}
			}
			if len(q.Get("X-Amz-Signature")) != 64 {
				t.Errorf("signature %q", q.Get("X-Amz-Signature"))
			}
			other, _ := Token("other", "eu-west-1", tt.creds, now)
			if decode(t, other).Query().Get("X-Amz-Signature") == q.Get("X-Amz-Signature") {
				t.Error("the cluster name is not signed")
			}
		})
	}
	if _, err := Token("", "us-east-1", exampleCreds, now); err == nil || !strings.Contains(err.Error(), "--cluster-name") {
		t.Errorf("no cluster: %v", err)
	}
	if _, err := Token("c", "", exampleCreds, now); err == nil || !strings.Contains(err.Error(), "--region") {
		t.Errorf("no region: %v", err)
	}
	// The region becomes the STS host name: a URL in it signed a token
	// for another host.
	for _, bad := range []string{"us-west-1/../x?y#", "evil.example.com/", "US-WEST-1", "us-west-1 "} {
		if _, err := Token("c", bad, exampleCreds, now); err == nil || !strings.Contains(err.Error(), "is not an AWS region") {
			t.Errorf("region %q: %v", bad, err)
		}
	}
	for _, good := range []string{"us-gov-west-1", "cn-north-1", "ap-southeast-2", "il-central-1"} {
		if _, err := Token("c", good, exampleCreds, now); err != nil {
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

func TestLoadCredentials(t *testing.T) {
	home := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".aws/credentials", "[default]\naws_access_key_id = DEF\naws_secret_access_key = defsecret\n\n"+
		"[ops]\n# a comment\naws_access_key_id=OPS\naws_secret_access_key=opssecret\naws_session_token=opstoken\n"+
		"[assume]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = default\n")
	write(".aws/config", "[profile half]\naws_access_key_id = HALF\n[profile regiononly]\nregion = eu-west-1\ns3 =\n  aws_access_key_id = NESTED\n  aws_secret_access_key = nested\n[profile sso]\nsso_session = corp\n[profile cfgkeys]\naws_access_key_id = CFG\naws_secret_access_key = cfgsecret\n")
	write("alt", "[default]\naws_access_key_id = ALT\naws_secret_access_key = altsecret\n")
	tests := []struct {
		name    string
		env     map[string]string
		profile string
		want    Credentials
		err     string
	}{
		{"environment first", map[string]string{"AWS_ACCESS_KEY_ID": "ENV", "AWS_SECRET_ACCESS_KEY": "envsecret", "AWS_SESSION_TOKEN": "t", "AWS_PROFILE": "ops"}, "",
			Credentials{"ENV", "envsecret", "t"}, ""},
		// The eks hook's kubeconfig passes --profile when aws:profile is set:
		// the identity that made the cluster, not the environment's keys.
		{"a given profile wins over the environment", map[string]string{"AWS_ACCESS_KEY_ID": "ENV", "AWS_SECRET_ACCESS_KEY": "envsecret"}, "ops",
			Credentials{"OPS", "opssecret", "opstoken"}, ""},
		// As `aws --profile`: a missing profile is refused, never replaced
		// by the environment's keys.
		{"a given profile found nowhere, keys in the environment", map[string]string{"AWS_ACCESS_KEY_ID": "ENV", "AWS_SECRET_ACCESS_KEY": "envsecret"}, "nope",
			Credentials{}, "the config profile (nope) could not be found"},
		{"a given profile found nowhere, no keys", nil, "nope", Credentials{}, "the config profile (nope) could not be found"},
		{"a given SSO profile", map[string]string{"AWS_ACCESS_KEY_ID": "ENV", "AWS_SECRET_ACCESS_KEY": "envsecret"}, "sso",
			Credentials{}, "profile sso names sso_session corp, which"},
		{"default profile", nil, "", Credentials{"DEF", "defsecret", ""}, ""},
		{"named profile", nil, "ops", Credentials{"OPS", "opssecret", "opstoken"}, ""},
		{"AWS_PROFILE", map[string]string{"AWS_PROFILE": "ops"}, "", Credentials{"OPS", "opssecret", "opstoken"}, ""},
		{"config file keys", nil, "cfgkeys", Credentials{"CFG", "cfgsecret", ""}, ""},
		{"other credentials file", map[string]string{"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "alt")}, "", Credentials{"ALT", "altsecret", ""}, ""},
		{"assume role", map[string]string{"AWS_ENDPOINT_URL": "http://127.0.0.1:1"}, "assume", Credentials{},
			"assuming role arn:aws:iam::1:role/x of profile assume at 127.0.0.1:1: dial tcp"},
		{"sso", nil, "sso", Credentials{}, "has no [sso-session corp] section"},
		{"missing", map[string]string{"AWS_PROFILE": "nope"}, "", Credentials{}, "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give profile nope"},
		{"half a key pair", nil, "half", Credentials{}, "profile half sets only one of aws_access_key_id and aws_secret_access_key"},
		{"a profile without credentials", map[string]string{"AWS_ACCESS_KEY_ID": "ENV", "AWS_SECRET_ACCESS_KEY": "envsecret"}, "regiononly",
			Credentials{}, "profile regiononly has no credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := func(k string) string {
				switch k {
				case "HOME":
					return home
				case "AWS_EC2_METADATA_DISABLED":
					return "true"
				}
				return tt.env[k]
			}
			got, err := LoadCredentials(context.Background(), env, tt.profile, "us-east-1")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
