package plugins

import (
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

func TestHelmWellFormed(t *testing.T) {
	for _, tt := range []struct {
		chart string
		ok    bool
	}{
		{"ingress-nginx", true}, {"bitnami/postgresql", true}, {"./charts/app", true}, {"/srv/chart", true},
		{"oci://ghcr.io/nginx/charts/nginx-ingress", true}, {"https://example.com/charts/app-1.0.0.tgz", true},
		{"", false}, {"my chart", false}, {"oci://", false}, {"ftp://example.com/c", false}, {"a/b/c", false},
	} {
		if got := wellFormedChart(tt.chart); got != tt.ok {
			t.Errorf("wellFormedChart(%q) = %v", tt.chart, got)
		}
	}
	for _, tt := range []struct {
		version string
		ok      bool
	}{
		{"1.2.3", true}, {"v1.2.3-rc.1+build.5", true}, {"^1.2", true}, {">=1.0 <2.0", true}, {">= 1.0, < 2.0", true},
		{"1.x", true}, {"~1.2.0 || ^2", true},
		{"latest", false}, {">=", false}, {"1.2.3.4", false}, {"1..2", false},
	} {
		if got := wellFormedVersion(tt.version); got != tt.ok {
			t.Errorf("wellFormedVersion(%q) = %v", tt.version, got)
		}
	}
}

func TestHelmFailuresHideSecrets(t *testing.T) {
	p, err := NewProvider("kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	got := check(t, p, releaseType, map[string]any{
		"chart": resource.MakeSecret(resource.NewStringProperty("s3cr3t chart")), "version": resource.MakeSecret(resource.NewStringProperty("s3cr3t")),
		"repositoryOpts": resource.MakeSecret(resource.NewObjectProperty(resource.PropertyMap{"repo": resource.NewStringProperty("s3cr3t-repo")})),
	})
	if len(got) != 3 {
		t.Fatalf("failures %q, want 3", got)
	}
	for _, f := range got {
		if strings.Contains(f, "s3cr3t") || !strings.Contains(f, "[secret]") {
			t.Errorf("failure %q shows a secret", f)
		}
	}
}
