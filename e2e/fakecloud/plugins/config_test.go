package plugins

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
)

// cleanEnv empties the environment variables the fakes read and points
// HOME at an empty directory.
func cleanEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE",
		"AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "KUBECONFIG", EnvECRImages} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv(EnvDir, t.TempDir())
}

// configure runs CheckConfig then Configure on a new provider of pkg with
// the string configuration cfg, returning the provider and the error of
// the first step that failed.
func configure(t *testing.T, pkg string, cfg map[string]string) (*provider, error) {
	t.Helper()
	p, err := NewProvider(pkg)
	if err != nil {
		t.Fatal(err)
	}
	news := resource.PropertyMap{"version": resource.NewStringProperty("1.0.0")}
	for k, v := range cfg {
		news[resource.PropertyKey(k)] = resource.NewStringProperty(v)
	}
	ctx := context.Background()
	checked, err := p.CheckConfig(ctx, plugin.CheckConfigRequest{News: news})
	if err != nil {
		t.Fatal(err)
	}
	if len(checked.Failures) > 0 {
		return p.(*provider), &failuresError{checked.Failures}
	}
	_, err = p.Configure(ctx, plugin.ConfigureRequest{Inputs: checked.Properties})
	return p.(*provider), err
}

// failuresError is check failures as an error, for the tests.
type failuresError struct{ f []plugin.CheckFailure }

func (e *failuresError) Error() string {
	var parts []string
	for _, f := range e.f {
		parts = append(parts, string(f.Property)+": "+f.Reason)
	}
	return strings.Join(parts, "; ")
}

func TestAWSConfigure(t *testing.T) {
	creds := "[default]\naws_access_key_id = AKIA1\naws_secret_access_key = s\n\n[ops]\naws_access_key_id = AKIA2\naws_secret_access_key = s2\n"
	tests := []struct {
		name string
		env  map[string]string
		cfg  map[string]string
		want string // part of the error; "" for success
	}{
		{"env keys", map[string]string{"AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "s"}, map[string]string{"region": "us-west-2"}, ""},
		{"region from env", map[string]string{"AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "s", "AWS_DEFAULT_REGION": "eu-west-1"}, nil, ""},
		{"config keys", nil, map[string]string{"region": "us-west-2", "accessKey": "AKIA", "secretKey": "s"}, ""},
		{"default profile", map[string]string{"creds": creds}, map[string]string{"region": "us-west-2"}, ""},
		{"named profile", map[string]string{"creds": creds}, map[string]string{"region": "us-west-2", "profile": "ops"}, ""},
		{"profile from env", map[string]string{"creds": creds, "AWS_PROFILE": "ops"}, map[string]string{"region": "us-west-2"}, ""},
		{"missing profile", map[string]string{"creds": creds}, map[string]string{"region": "us-west-2", "profile": "nope"}, "failed to get shared config profile, nope"},
		{"no credentials", nil, map[string]string{"region": "us-west-2"}, "No valid credential sources found."},
		{"half the keys", map[string]string{"AWS_ACCESS_KEY_ID": "AKIA"}, map[string]string{"region": "us-west-2"}, "No valid credential sources found."},
		{"no region", map[string]string{"AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "s"}, nil, "missing region information"},
		{"bad region", map[string]string{"AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "s"}, map[string]string{"region": "mars"}, "invalid AWS Region: mars"},
		{"unknown key", nil, map[string]string{"regoin": "us-west-2"}, "`aws:regoin` is not a valid configuration key for the aws provider"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cleanEnv(t)
			for k, v := range tt.env {
				if k == "creds" {
					path := filepath.Join(t.TempDir(), "credentials")
					if err := os.WriteFile(path, []byte(v), 0o600); err != nil {
						t.Fatal(err)
					}
					t.Setenv("AWS_SHARED_CREDENTIALS_FILE", path)
					continue
				}
				t.Setenv(k, v)
			}
			_, err := configure(t, "aws", tt.cfg)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("configure = %v, want %q", err, tt.want)
			}
		})
	}
}

const testKubeconfig = `apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster: {server: "https://ABC.gr7.eu-west-1.eks.amazonaws.com"}
- name: other
  cluster: {server: "https://127.0.0.1:6443"}
contexts:
- name: dev
  context: {cluster: dev-cluster, user: u, namespace: apps}
- name: nocluster
  context: {cluster: gone, user: u}
users:
- name: u
  user: {token: t}
`

func TestKubernetesConfigure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config")
	if err := os.WriteFile(path, []byte(testKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		env     map[string]string
		cfg     map[string]string
		want    string // part of the error; "" for success
		wantNS  string
		wantSrv string
	}{
		{"content", nil, map[string]string{"kubeconfig": testKubeconfig}, "", "apps", "https://ABC.gr7.eu-west-1.eks.amazonaws.com"},
		{"path", nil, map[string]string{"kubeconfig": path, "namespace": "ns1"}, "", "ns1", "https://ABC.gr7.eu-west-1.eks.amazonaws.com"},
		{"KUBECONFIG", map[string]string{"KUBECONFIG": path}, nil, "", "apps", "https://ABC.gr7.eu-west-1.eks.amazonaws.com"},
		{"cluster override", nil, map[string]string{"kubeconfig": path, "cluster": "other"}, "", "apps", "https://127.0.0.1:6443"},
		{"missing context", nil, map[string]string{"kubeconfig": path, "context": "prod"}, `context "prod" does not exist`, "", ""},
		{"context without cluster", nil, map[string]string{"kubeconfig": path, "context": "nocluster"}, `cluster "gone" of context "nocluster" does not exist`, "", ""},
		{"missing file", nil, map[string]string{"kubeconfig": filepath.Join(dir, "nope")}, "unable to read kubeconfig file", "", ""},
		{"no kubeconfig", nil, nil, "unable to read kubeconfig file", "", ""},
		{"not YAML", nil, map[string]string{"kubeconfig": "a: [\n"}, "failed to parse kubeconfig", "", ""},
		{"unknown key", nil, map[string]string{"kubeconfig": path, "kubeContext": "dev"}, "`kubernetes:kubeContext` is not a valid configuration key", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cleanEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			p, err := configure(t, "kubernetes", tt.cfg)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("configure = %v, want %q", err, tt.want)
			}
			if c := p.cloud.(*kubeCloud); tt.want == "" && (c.ns != tt.wantNS || c.target.server != tt.wantSrv) {
				t.Errorf("namespace %q server %q, want %q %q", c.ns, c.target.server, tt.wantNS, tt.wantSrv)
			}
		})
	}
}
