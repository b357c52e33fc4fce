package ekstoken

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeMetadata serves the EC2 instance metadata service (IMDSv2, role
// "web-role") and a container credentials endpoint at /creds, which wants
// Authorization "auth-token".
func fakeMetadata(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		const creds = `{"Code": "Success", "AccessKeyId": "%s", "SecretAccessKey": "s-%[1]s", "Token": "t-%[1]s", "Expiration": "2099-01-01T00:00:00Z"}`
		switch {
		case r.URL.Path == "/creds":
			if r.Header.Get("Authorization") != "auth-token" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			fmt.Fprintf(w, creds, "ECS")
		case r.Method == "PUT" && r.URL.Path == "/latest/api/token":
			if r.Header.Get("X-aws-ec2-metadata-token-ttl-seconds") == "" {
				w.WriteHeader(http.StatusBadRequest)
			}
			fmt.Fprint(w, "imds-token")
		case r.Header.Get("X-aws-ec2-metadata-token") != "imds-token":
			w.WriteHeader(http.StatusUnauthorized)
		case r.URL.Path == "/latest/meta-data/iam/security-credentials/":
			fmt.Fprint(w, "web-role\n")
		case r.URL.Path == "/latest/meta-data/iam/security-credentials/web-role":
			fmt.Fprintf(w, creds, "IMDS")
		default:
			http.NotFound(w, r)
		}
	}))
}

func TestMetadataCredentials(t *testing.T) {
	md := fakeMetadata(t)
	defer md.Close()
	home := t.TempDir()
	tokenFile := filepath.Join(home, "auth")
	os.WriteFile(tokenFile, []byte("auth-token\n"), 0o600)
	tests := []struct {
		name      string
		env       map[string]string
		want, err string
	}{
		{"instance role", map[string]string{"AWS_EC2_METADATA_SERVICE_ENDPOINT": md.URL}, "IMDS", ""},
		{"instance metadata disabled", map[string]string{"AWS_EC2_METADATA_SERVICE_ENDPOINT": md.URL, "AWS_EC2_METADATA_DISABLED": "true"},
			"", "no AWS credentials"},
		{"nothing answers", map[string]string{"AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://127.0.0.1:1"}, "", "no AWS credentials"},
		{"container, token file", map[string]string{"AWS_CONTAINER_CREDENTIALS_FULL_URI": md.URL + "/creds",
			"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": tokenFile}, "ECS", ""},
		{"container, token", map[string]string{"AWS_CONTAINER_CREDENTIALS_FULL_URI": md.URL + "/creds",
			"AWS_CONTAINER_AUTHORIZATION_TOKEN": "auth-token"}, "ECS", ""},
		{"container refuses", map[string]string{"AWS_CONTAINER_CREDENTIALS_FULL_URI": md.URL + "/creds"},
			"", "answered status 401 without credentials"},
		{"container on another host", map[string]string{"AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://evil.example.com/creds"},
			"", "must be https, or http to a loopback address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"HOME": home}
			for k, v := range tt.env {
				env[k] = v
			}
			got, err := LoadCredentials(context.Background(), func(k string) string { return env[k] }, "", "us-east-1")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				if strings.Contains(err.Error(), "auth-token") {
					t.Errorf("the error shows the authorization token: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != (Credentials{tt.want, "s-" + tt.want, "t-" + tt.want}) {
				t.Fatalf("got %+v, want %s", got, tt.want)
			}
		})
	}
}

func TestEndpoint(t *testing.T) {
	tests := []struct {
		name, region string
		env          map[string]string
		id, host     string
		want, err    string
	}{
		{"STS", "eu-west-1", nil, "STS", "sts", "https://sts.eu-west-1.amazonaws.com", ""},
		{"China", "cn-north-1", nil, "STS", "sts", "https://sts.cn-north-1.amazonaws.com.cn", ""},
		{"SSO in China", "cn-northwest-1", nil, "SSO", "portal.sso", "https://portal.sso.cn-northwest-1.amazonaws.com.cn", ""},
		{"service's own", "eu-west-1", map[string]string{"AWS_ENDPOINT_URL_STS": "http://127.0.0.1:9/sts", "AWS_ENDPOINT_URL": "https://all"},
			"STS", "sts", "http://127.0.0.1:9/sts", ""},
		{"every service's", "eu-west-1", map[string]string{"AWS_ENDPOINT_URL_STS": "http://sts.local", "AWS_ENDPOINT_URL": "https://all.local"},
			"SSO", "portal.sso", "https://all.local", ""},
		{"ignored", "eu-west-1", map[string]string{"AWS_ENDPOINT_URL": "https://all.local", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"},
			"STS", "sts", "https://sts.eu-west-1.amazonaws.com", ""},
		{"not a URL", "eu-west-1", map[string]string{"AWS_ENDPOINT_URL_STS": "sts.local"}, "STS", "sts", "", "is not an http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &loader{env: func(k string) string { return tt.env[k] }, region: tt.region}
			u, err := l.endpoint(tt.id, tt.host)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || u.String() != tt.want {
				t.Fatalf("got %v, %v; want %s", u, err, tt.want)
			}
		})
	}
}
