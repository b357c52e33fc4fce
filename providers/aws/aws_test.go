package aws

import (
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/plugincache"
	"github.com/runnerhq/runner/providers"
)

func question(t *testing.T, key string) providers.Question {
	t.Helper()
	for _, q := range New().Questions {
		if q.Key == key {
			return q
		}
	}
	t.Fatalf("no question %s", key)
	return providers.Question{}
}

// TestMARAKeys checks that the questions are MARA's keys, secrets included.
func TestMARAKeys(t *testing.T) {
	want := map[string]bool{ // key -> secret
		"aws:region": false, "aws:profile": false, "vpc:azs": false, "eks:k8s_version": false,
		"eks:instance_type": false, "eks:min_size": false, "eks:max_size": false, "eks:desired_capacity": false,
		"prometheus:adminpass": true, "sirius:accounts_pwd": true, "sirius:ledger_pwd": true,
		"sirius:demo_login_user": false, "sirius:demo_login_pwd": true,
	}
	qs := New().Questions
	if len(qs) != len(want) {
		t.Errorf("%d questions, want %d", len(qs), len(want))
	}
	for _, q := range qs {
		secret, ok := want[q.Key]
		if !ok {
			t.Errorf("question %s is not one of MARA's", q.Key)
		}
		if q.Secret != secret {
			t.Errorf("%s: secret %v, want %v", q.Key, q.Secret, secret)
		}
	}
}

func TestRegionDefault(t *testing.T) {
	q := question(t, "aws:region")
	tests := []struct{ env, want string }{{"", "us-east-1"}, {"eu-west-3", "eu-west-3"}}
	for _, tt := range tests {
		got := q.Default(func(k string) string {
			if k == "AWS_DEFAULT_REGION" {
				return tt.env
			}
			return ""
		})
		if got != tt.want {
			t.Errorf("AWS_DEFAULT_REGION=%q: default %q, want %q", tt.env, got, tt.want)
		}
	}
}

func TestQuestionValidation(t *testing.T) {
	tests := []struct {
		key, value string
		ok         bool
	}{
		{"aws:region", "us-east-1", true},
		{"aws:region", "us-gov-west-1", true},
		{"aws:region", "mars-1", false},
		{"vpc:azs", "us-east-1a,us-east-1b", true},
		{"vpc:azs", "us-east-1a, us-east-1c", true},
		{"vpc:azs", "us-east-1", false},
		{"vpc:azs", "us-east-1a,us-west-2b", false},
		{"vpc:azs", "us-gov-west-1a,us-gov-west-1b", true},
		{"vpc:azs", "us-east-1a", false}, // EKS needs two zones
		{"aws:profile", "none", false},   // MARA's "no profile"
		{"aws:profile", "myProfile", true},
		{"vpc:azs", "us-west-1a,us-west-1a", false}, // two subnets of one name
		{"vpc:azs", "us-west-1a, us-west-1b,us-west-1a", false},
		{"eks:k8s_version", "1.34", true},
		{"eks:k8s_version", "1.30", true},
		{"eks:k8s_version", "1.29", false},
		{"eks:k8s_version", "1.21", false},
		{"eks:k8s_version", "v1.34", false},
		{"eks:instance_type", "t2.large", true},
		{"eks:instance_type", "large", false},
		{"eks:min_size", "3", true},
		{"eks:min_size", "0", false},
		{"eks:max_size", "twelve", false},
		{"prometheus:adminpass", "strongpass", true},
		{"sirius:ledger_pwd", "  ", false},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			err := question(t, tt.key).Validate(tt.value)
			if (err == nil) != tt.ok {
				t.Fatalf("Validate(%q) = %v, want ok=%v", tt.value, err, tt.ok)
			}
		})
	}
}

// TestZonesAgreeWithRegion: the zones must be in aws:region, and the
// region's default comes from zones already given.
func TestZonesAgreeWithRegion(t *testing.T) {
	q := question(t, "vpc:azs")
	tests := []struct {
		zones, region string
		want          string // "" for agreement, else part of the error
	}{
		{"us-east-1a,us-east-1b", "us-east-1", ""},
		{"us-west-2a", "", ""},
		{"us-west-2a", "us-east-1", "the zone us-west-2a is in region us-west-2, not in aws:region us-east-1"},
		{"us-east-1a, us-west-1b", "us-east-1", "us-west-1b is in region us-west-1"},
		{"us-west-2a", "us-east-1", "set aws:region to us-west-2"},
	}
	for _, tt := range tests {
		get := func(k string) (string, bool) { return tt.region, k == "aws:region" && tt.region != "" }
		err := q.Agrees(tt.zones, get)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("zones %q, region %q: %v, want %q", tt.zones, tt.region, err, tt.want)
		}
	}

	region := question(t, "aws:region")
	for _, tt := range []struct{ zones, want string }{
		{"us-west-2a,us-west-2b", "us-west-2"},
		{"eu-central-1c,eu-central-1a", "eu-central-1"},
		{"eu-central-1c", ""}, // one zone is not enough
		{"", ""},
		{"nonsense", ""},
		{"us-east-1a,us-west-2a", ""},
	} {
		got := region.DefaultFrom(func(k string) (string, bool) { return tt.zones, k == "vpc:azs" && tt.zones != "" })
		if got != tt.want {
			t.Errorf("the region default for zones %q is %q, want %q", tt.zones, got, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  map[string]string
		want string
	}{
		{"MARA's counts", map[string]string{"eks:min_size": "3", "eks:max_size": "12", "eks:desired_capacity": "3"}, ""},
		{"no desired count", map[string]string{"eks:min_size": "3", "eks:max_size": "12"}, ""},
		{"min above max", map[string]string{"eks:min_size": "5", "eks:max_size": "4", "eks:desired_capacity": "5"}, "larger than eks:max_size"},
		{"desired above max", map[string]string{"eks:min_size": "3", "eks:max_size": "12", "eks:desired_capacity": "13"}, "must lie between"},
		{"published image", map[string]string{"kic:image_origin": "registry"}, ""},
		{"image from source", map[string]string{"kic:image_origin": "source"}, "runner builds no images"},
		{"zones in MARA's range", map[string]string{"vpc:azs": "us-east-1a,us-east-1b"}, ""},
		{"too many zones", map[string]string{"vpc:azs": "us-east-1a,us-east-1b,us-east-1c,us-east-1d,us-east-1e,us-east-1f,us-east-1g," +
			"us-east-1h,us-east-1i,us-east-1j,us-east-1k,us-east-1l,us-east-1m,us-east-1n,us-east-1o,us-east-1p"}, "room for 1 to 15 zones"},
		{"own range", map[string]string{"vpc:azs": "us-east-1a,us-east-1b", "vpc:cidr": "10.0.0.0/20"}, ""},
		{"bad range", map[string]string{"vpc:azs": "us-east-1a,us-east-1b", "vpc:cidr": "10.0.0.0/24"}, "vpc:cidr must be an IPv4 range from /16 to /20"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New().Validate(func(k string) (string, bool) {
				v, ok := tt.cfg[k]
				return v, ok
			})
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("%v: error %v, want %q", tt.cfg, err, tt.want)
			}
		})
	}
}

// TestShape checks the projects: vpc, eks and ecr with programs, then the
// shared Kubernetes projects after kubeconfig (the order is checked in
// runner/graph), and eks's hook.
func TestShape(t *testing.T) {
	p := New()
	var names []string
	for _, proj := range p.Projects {
		names = append(names, proj.Name)
		if proj.Program == nil {
			t.Errorf("project %s has no program", proj.Name)
		}
	}
	want := "vpc eks ecr kubeconfig secrets ingress-controller-namespace ingress-controller logstore logagent certmgr prometheus observability sirius"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("projects %s\nwant %s", got, want)
	}
	if kc, _ := p.Project("kubeconfig"); strings.Join(kc.DependsOn, ",") != "eks" || kc.Category != providers.Kubernetes {
		t.Fatalf("kubeconfig project %+v", kc)
	}
	if eks, _ := p.Project("eks"); eks.OnSuccess == nil || strings.Join(eks.DependsOn, ",") != "vpc" {
		t.Fatal("eks has no on_success hook or does not depend on vpc")
	}
}

// TestPlugins: the aws provider declares Pulumi's aws and kubernetes
// plugins at the versions of the provider contracts, as exact versions.
func TestPlugins(t *testing.T) {
	got := map[string]string{}
	for _, p := range New().Plugins {
		if err := plugincache.CheckSpec(p.Name, p.Version); err != nil || p.Version == "" {
			t.Errorf("plugin %+v: %v", p, err)
		}
		got[p.Name] = p.Version
	}
	if len(got) != 2 || got["aws"] != "7.48.0" || got["kubernetes"] != "4.34.2" {
		t.Errorf("plugins = %v", got)
	}
	if help := New().Plugins[0].Help; !strings.Contains(help, "AWS_ACCESS_KEY_ID") || !strings.Contains(help, "aws:profile") {
		t.Errorf("the aws plugin's help says %q", help)
	}
}
