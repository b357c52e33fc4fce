package linode

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
)

// TestVersionFollowsOldestMinor: the LKE version check refuses exactly the
// minor versions before oldestMinor, whatever it is set to.
func TestVersionFollowsOldestMinor(t *testing.T) {
	oldest, err := strconv.Atoi(strings.TrimPrefix(oldestMinor, "1."))
	if err != nil {
		t.Fatalf("oldestMinor %q is not 1.<minor>", oldestMinor)
	}
	for _, tt := range []struct {
		v  string
		ok bool
	}{
		{oldestMinor, true},
		{fmt.Sprintf("1.%d", oldest+2), true},
		{fmt.Sprintf("1.%d", oldest-1), false},
		{"1.23", false},
		{"1.x", false},
		{"v1.34", false},
		{"1.34.1", false},
	} {
		if err := version(tt.v); (err == nil) != tt.ok {
			t.Errorf("version(%q) = %v, want ok %v", tt.v, err, tt.ok)
		}
	}
}

// TestDNSNotice: the ingress controller's hook names the two DNS records
// to make and the load balancer's address, or where to find it.
func TestDNSNotice(t *testing.T) {
	for _, tt := range []struct {
		name, fqdn, ip, want string
	}{
		{"address known", "mara.example.org", "192.0.2.7",
			"point mara.example.org and harbor.mara.example.org at the ingress controller's load balancer 192.0.2.7;"},
		{"address not known", "mara.example.org", "", "(its address is not known yet: see `runner stack output --project ingress-controller`)"},
		{"no host name", "", "192.0.2.7", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var log strings.Builder
			in := providers.HookInput{Project: "ingress-controller", Config: map[string]any{}, Log: &log,
				Outputs: resource.PropertyMap{"lb_ingress_ip": tt.ip}}
			if tt.fqdn != "" {
				in.Config["kic-helm:fqdn"] = tt.fqdn
			}
			if err := dnsNotice(context.Background(), in); err != nil {
				t.Fatal(err)
			}
			if got := log.String(); tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("dnsNotice wrote %q, want it to hold %q", got, tt.want)
			}
		})
	}
}

// TestFQDN: kic-helm:fqdn must be a host name in a domain whose labels
// DNS takes, short enough for harbor.<it>.
func TestFQDN(t *testing.T) {
	label := strings.Repeat("a", 63)
	for _, tt := range []struct {
		v  string
		ok bool
	}{
		{"mara.example.com", true},
		{"a-b.c1.example.org", true},
		{label + ".example.com", true},
		{label + "a.example.com", false},
		{strings.Repeat(label+".", 3) + strings.Repeat("b", 50) + ".com", true}, // 246 characters
		{strings.Repeat(label+".", 3) + strings.Repeat("b", 51) + ".com", false},
		{"mara", false},
		{"Mara.Example.com", false},
		{"mara.example.com.", false},
		{"-mara.example.com", false},
		{"mara.example.123", false},
		{"", false},
	} {
		if err := fqdn(tt.v); (err == nil) != tt.ok {
			t.Errorf("fqdn(%q) = %v, want ok %v", tt.v, err, tt.ok)
		}
	}
}
