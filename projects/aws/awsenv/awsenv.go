// Package awsenv holds what the programs of the aws provider's projects
// (vpc, eks, ecr) share: the names they give the cluster and the
// repository, their tags, and the reading of MARA's vpc:* config.
package awsenv

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"

	"github.com/runnerhq/runner/engine"
)

// DefaultCIDR is the VPC's address range when vpc:cidr is not set: MARA's.
const DefaultCIDR = "10.100.0.0/16"

// MaxZones is how many zones the VPC's address plan has room for: a public
// subnet per zone in the range's first sixteenth, a private one in each of
// the fifteen others.
const MaxZones = 15

var notNameChar = regexp.MustCompile(`[^A-Za-z0-9]+`)

// ClusterName is the EKS cluster's name on stack: "mara-<stack>" with
// anything but letters and digits turned into '-' (EKS allows letters,
// digits, '-' and '_', up to 100 characters). The vpc project tags its
// subnets with it, so the two must agree.
func ClusterName(stack string) string {
	name := "mara-" + strings.Trim(notNameChar.ReplaceAllString(stack, "-"), "-")
	if len(name) > 100 {
		name = strings.TrimRight(name[:100], "-")
	}
	return name
}

// RepositoryName is the ECR repository's name on stack, MARA's
// "ingress-controller-<stack>" in the lower case ECR requires.
func RepositoryName(stack string) string {
	return "ingress-controller-" + strings.Trim(notNameChar.ReplaceAllString(strings.ToLower(stack), "-"), "-")
}

// Tags are the tags of every AWS resource of a project: its Name, and
// MARA's Project and Stack; extra adds more.
func Tags(ctx *engine.Context, name string, extra map[string]any) map[string]any {
	t := map[string]any{"Name": name, "Project": ctx.Project(), "Stack": ctx.Stack()}
	for k, v := range extra {
		t[k] = v
	}
	return t
}

// Zones reads vpc:azs as the stack config holds it: a YAML list of zones
// or a comma-separated string.
func Zones(v any) ([]string, error) {
	var out []string
	switch x := v.(type) {
	case string:
		for _, z := range strings.Split(x, ",") {
			if z = strings.TrimSpace(z); z != "" {
				out = append(out, z)
			}
		}
	case []any:
		for i, e := range x {
			z, ok := e.(string)
			if !ok || strings.TrimSpace(z) == "" {
				return nil, fmt.Errorf("vpc:azs[%d] is %v, not the name of an availability zone", i, e)
			}
			out = append(out, strings.TrimSpace(z))
		}
	default:
		return nil, fmt.Errorf("vpc:azs must be a list of availability zones, not %v", v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("vpc:azs names no availability zone; give at least one, such as us-east-1a,us-east-1b")
	}
	return out, nil
}

// Subnets carves the VPC's range cidr (an IPv4 range of prefix /16 to /20)
// into n public and n private subnets, as MARA does for a /16: public ones
// of prefix+8 at the start of the range (10.100.0.0/24, 10.100.1.0/24, ...)
// and private ones of prefix+4 after them (10.100.16.0/20, 10.100.32.0/20, ...).
func Subnets(cidr string, n int) (public, private []string, err error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() || p.Bits() < 16 || p.Bits() > 20 {
		return nil, nil, fmt.Errorf("vpc:cidr must be an IPv4 range from /16 to /20 such as %s, not %q", DefaultCIDR, cidr)
	}
	if p.Masked() != p {
		return nil, nil, fmt.Errorf("vpc:cidr %s has host bits set; the range starts at %s", cidr, p.Masked())
	}
	if n < 1 || n > MaxZones {
		return nil, nil, fmt.Errorf("the VPC has room for 1 to %d zones, not %d", MaxZones, n)
	}
	base := p.Addr().As4()
	start := uint32(base[0])<<24 | uint32(base[1])<<16 | uint32(base[2])<<8 | uint32(base[3])
	at := func(offset uint32, bits int) string {
		a := start + offset
		addr := netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)})
		return netip.PrefixFrom(addr, bits).String()
	}
	pubBits, privBits := p.Bits()+8, p.Bits()+4
	for i := 0; i < n; i++ {
		public = append(public, at(uint32(i)<<(32-pubBits), pubBits))
		private = append(private, at(uint32(i+1)<<(32-privBits), privBits))
	}
	return public, private, nil
}
