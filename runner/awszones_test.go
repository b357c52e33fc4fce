package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/runnerhq/runner/providers/aws"
)

// awsBody is an aws stack config with every answer but the region and
// the zones (the secrets are set by awsSession).
const awsBody = "config:\n  eks:k8s_version: \"1.34\"\n  eks:instance_type: t2.large\n  eks:min_size: 3\n  eks:max_size: 12\n  eks:desired_capacity: 3\n  sirius:demo_login_user: testuser\n"

func awsSession(t *testing.T, interactive bool, a *scripted, extra string) *Session {
	t.Helper()
	var s *Session
	if a == nil {
		s = session(t, interactive, nil, awsBody+extra)
	} else {
		s = session(t, interactive, a, awsBody+extra)
	}
	s.Provider = aws.New()
	for _, k := range []string{"prometheus:adminpass", "sirius:accounts_pwd", "sirius:ledger_pwd", "sirius:demo_login_pwd"} {
		if err := s.SetConfig(context.Background(), k, "pw-"+k, true, false); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestZonesOfAnotherRegion(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, extra  string
		envRegion    string
		wantErr      []string // non-interactive: the error says all of these
		wantRegion   string   // else: the region saved
		wantDefaults string
	}{
		{name: "zones of another region", extra: "  aws:region: us-east-1\n  vpc:azs: us-west-2a,us-west-2b\n",
			wantErr: []string{"line 10: vpc:azs \"us-west-2a,us-west-2b\" does not agree with aws:region (line 9)", "us-west-2a is in region us-west-2, not in aws:region us-east-1"}},
		{name: "zones as a YAML list (MARA's example)", extra: "  aws:region: us-east-1\n  vpc:azs:\n    - us-west-1a\n    - us-west-1b\n",
			wantErr: []string{"line 10: vpc:azs", "aws:region (line 9)", "us-west-1a is in region us-west-1", "set aws:region to us-west-1"}},
		{name: "zones of two regions", extra: "  aws:region: us-east-1\n  vpc:azs: us-east-1a,us-west-1b\n",
			wantErr: []string{"line 10: vpc:azs", "must be zones of one region: us-east-1a is in us-east-1, us-west-1b in us-west-1"}},
		{name: "a zone twice", extra: "  aws:region: us-west-1\n  vpc:azs:\n    - us-west-1a\n    - us-west-1a\n",
			wantErr: []string{"line 10: vpc:azs", "must name each zone once; us-west-1a is given twice"}},
		{name: "the region defaults to the zones'", extra: "  vpc:azs: us-west-2a,us-west-2b\n",
			wantRegion: "us-west-2", wantDefaults: "aws:region"},
		{name: "even against AWS_DEFAULT_REGION", extra: "  vpc:azs: us-west-2a,us-west-2b\n", envRegion: "us-east-1",
			wantRegion: "us-west-2", wantDefaults: "aws:region"},
		{name: "zones of the region", extra: "  aws:region: eu-west-3\n  vpc:azs: eu-west-3a,eu-west-3c\n", envRegion: "us-east-1",
			wantRegion: "eu-west-3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("AWS_DEFAULT_REGION", tt.envRegion)
			s := awsSession(t, false, nil, tt.extra)
			rep, err := s.Validate(ctx)
			if len(tt.wantErr) > 0 {
				if !IsValidation(err) {
					t.Fatalf("error %v, want a validation error", err)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("the error does not say %q: %v", w, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, _, _ := s.Config.String(ctx, "aws:region", nil); got != tt.wantRegion {
				t.Errorf("aws:region = %q, want %q", got, tt.wantRegion)
			}
			if got := strings.Join(rep.Defaulted, ","); got != tt.wantDefaults {
				t.Errorf("defaulted %q, want %q", got, tt.wantDefaults)
			}
		})
	}
}

// TestZonesOfAnotherRegionAreAskedAgain: on a terminal, zones that do not
// fit the region are asked again, and so is an answer that does not fit.
func TestZonesOfAnotherRegionAreAskedAgain(t *testing.T) {
	t.Setenv("AWS_DEFAULT_REGION", "")
	a := &scripted{answers: []string{"us-west-1a,us-west-1b", "us-east-1a,us-east-1b"}}
	s := awsSession(t, true, a, "  aws:region: us-east-1\n  vpc:azs: us-west-2a,us-west-2b\n")
	rep, err := s.Validate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.asked) != 2 || !strings.Contains(a.asked[0], "vpc:azs") || a.asked[0] != a.asked[1] {
		t.Fatalf("asked %v", a.asked)
	}
	if got := strings.Join(rep.Asked, ","); got != "vpc:azs" {
		t.Fatalf("asked %s", got)
	}
	if got, _, _ := s.Config.Get(context.Background(), "vpc:azs", false, nil); got != "us-east-1a,us-east-1b" {
		t.Fatalf("vpc:azs = %v", got)
	}
	if errOut := s.IO().Err.(interface{ String() string }).String(); !strings.Contains(errOut, "us-west-2a is in region us-west-2, not in aws:region us-east-1") {
		t.Fatalf("the terminal was not told why: %q", errOut)
	}
}

// TestInvalidValueIsListedOrAskedAgain: a value the provider does not
// accept (MARA's eks:k8s_version 1.21) is listed with the missing ones when
// there is no terminal, and asked again on one.
func TestInvalidValueIsListedOrAskedAgain(t *testing.T) {
	t.Setenv("AWS_DEFAULT_REGION", "")
	body := "config:\n  eks:k8s_version: \"1.21\"\n  aws:region: us-east-1\n  vpc:azs: us-east-1a,us-east-1b\n"
	s := session(t, false, nil, body)
	s.Provider = aws.New()
	_, err := s.Validate(context.Background())
	if !IsValidation(err) {
		t.Fatalf("error %v, want a validation error", err)
	}
	for _, want := range []string{"line 2: eks:k8s_version is \"1.21\", which is not accepted", "config set --secret sirius:accounts_pwd"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}

	a := &scripted{answers: []string{"1.34", "t3.large", "3", "6", "3"}}
	s = session(t, true, a, body+"  sirius:demo_login_user: u\n")
	s.Provider = aws.New()
	for _, k := range []string{"prometheus:adminpass", "sirius:accounts_pwd", "sirius:ledger_pwd", "sirius:demo_login_pwd"} {
		if err := s.SetConfig(context.Background(), k, "pw-"+k, true, false); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := s.Validate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.asked) == 0 || !strings.Contains(a.asked[0], "eks:k8s_version") {
		t.Fatalf("asked %v", a.asked)
	}
	if got, _, _ := s.Config.String(context.Background(), "eks:k8s_version", nil); got != "1.34" {
		t.Errorf("eks:k8s_version = %q after the answer, want 1.34 (asked %v, report %+v)", got, a.asked, rep)
	}
}
