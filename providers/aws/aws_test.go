package aws

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/plugincache"
	"github.com/runnerhq/runner/engine/resource"
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
		{"vpc:azs", "us-gov-west-1a", true},
		{"eks:k8s_version", "1.21", true},
		{"eks:k8s_version", "v1.21", false},
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
		{"eu-central-1c", "eu-central-1"},
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

func TestValidateNodeCounts(t *testing.T) {
	tests := []struct {
		min, max, desired string
		want              string
	}{
		{"3", "12", "3", ""},
		{"3", "12", "", ""},
		{"5", "4", "5", "larger than eks:max_size"},
		{"3", "12", "13", "must lie between"},
	}
	for _, tt := range tests {
		cfg := map[string]string{"eks:min_size": tt.min, "eks:max_size": tt.max, "eks:desired_capacity": tt.desired}
		err := New().Validate(func(k string) (string, bool) {
			v := cfg[k]
			return v, v != ""
		})
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%v: error %v, want %q", cfg, err, tt.want)
		}
	}
}

// TestShape checks that the provider says it cannot deploy yet and that
// eks has its hook (the order of its projects is checked in runner/graph).
func TestShape(t *testing.T) {
	p := New()
	if len(p.Projects) != 15 {
		t.Fatalf("%d projects, want MARA's 15", len(p.Projects))
	}
	if p.NotDeployable == "" || !strings.Contains(p.NotDeployable, "does not have yet") {
		t.Fatalf("NotDeployable = %q", p.NotDeployable)
	}
	if eks, _ := p.Project("eks"); eks.OnSuccess == nil {
		t.Fatal("eks has no on_success hook")
	}
}

// fakeAWS puts an aws executable in a folder that records its arguments.
func fakeAWS(t *testing.T, exit int) (dir, argsFile string) {
	dir = t.TempDir()
	argsFile = filepath.Join(dir, "args")
	script := "#!/bin/sh\necho \"$@\" > " + argsFile + "\necho updated kubeconfig\nexit " + string(rune('0'+exit)) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "aws"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, argsFile
}

func TestUpdateKubeconfigHook(t *testing.T) {
	tests := []struct {
		name     string
		config   map[string]any
		outputs  resource.PropertyMap
		exit     int
		wantArgs string
		wantErr  string
	}{
		{"region and profile", map[string]any{"aws:region": "us-west-2", "aws:profile": "ops"},
			resource.PropertyMap{"cluster_name": "c1"}, 0, "--region us-west-2 --profile ops eks update-kubeconfig --name c1", ""},
		{"MARA's none profile", map[string]any{"aws:region": "us-east-1", "aws:profile": "none"},
			resource.PropertyMap{"cluster_name": "c1"}, 0, "--region us-east-1 eks update-kubeconfig --name c1", ""},
		{"no cluster name", nil, resource.PropertyMap{}, 0, "", "no cluster_name"},
		{"aws fails", nil, resource.PropertyMap{"cluster_name": "c2"}, 1, "eks update-kubeconfig --name c2", "EKS cluster c2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, argsFile := fakeAWS(t, tt.exit)
			var log strings.Builder
			err := updateKubeconfig(context.Background(), providers.HookInput{Project: "eks", Outputs: tt.outputs,
				Config: tt.config, Env: map[string]string{"PATH": dir}, Log: &log})
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			args, _ := os.ReadFile(argsFile)
			if got := strings.TrimSpace(string(args)); got != tt.wantArgs {
				t.Fatalf("aws ran with %q, want %q", got, tt.wantArgs)
			}
			if tt.wantArgs != "" && !strings.Contains(log.String(), "updated kubeconfig") {
				t.Fatalf("the hook's log lacks aws's output: %q", log.String())
			}
		})
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
}
