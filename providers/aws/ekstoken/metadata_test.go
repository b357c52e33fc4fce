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
	"time"
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
				return
			}
			w.Header().Set("X-Aws-Ec2-Metadata-Token-Ttl-Seconds", r.Header.Get("X-aws-ec2-metadata-token-ttl-seconds"))
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
	os.WriteFile(tokenFile, []byte("auth-token"), 0o600)
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
			"", "the container credentials endpoint gave no credentials"},
		{"container on another host", map[string]string{"AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://192.0.2.1/creds"},
			"", `invalid endpoint host, "192.0.2.1", only loopback/ecs/eks hosts are allowed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"AWS_EC2_METADATA_DISABLED": "false"}
			for k, v := range tt.env {
				env[k] = v
			}
			isolate(t, home, env)
			got, err := Credentials(context.Background(), "", "us-east-1", time.Now())
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
			if got.AccessKeyID != tt.want || got.SecretAccessKey != "s-"+tt.want || got.SessionToken != "t-"+tt.want {
				t.Fatalf("got %+v, want %s", got, tt.want)
			}
		})
	}
}
