package aws

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/runnerhq/runner/projects/aws/awsenv"
	"github.com/runnerhq/runner/projects/aws/eks"
	projcluster "github.com/runnerhq/runner/projects/cluster"
	"github.com/runnerhq/runner/providers"
)

func questions() []providers.Question {
	return []providers.Question{
		{Key: "aws:region", Message: "AWS region", Help: "the region of every AWS resource",
			DefaultFrom: regionOfZones,
			Default: func(env func(string) string) string {
				if r := env("AWS_DEFAULT_REGION"); r != "" {
					return r
				}
				return "us-east-1"
			}, Validate: providers.Matches(`^[a-z]{2}(-gov)?-[a-z]+-\d$`, "an AWS region such as us-east-1")},
		{Key: "aws:profile", Message: "AWS profile", Help: "the profile of ~/.aws/credentials or ~/.aws/config to use (empty: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, else the default profile)",
			Default: func(env func(string) string) string { return env("AWS_PROFILE") }, Optional: true, Validate: profile},
		{Key: "vpc:azs", Message: "Availability zones (comma-separated)", Help: "the zones of the VPC's subnets, in the region aws:region, e.g. us-east-1a,us-east-1b",
			Validate: azs, Agrees: zonesInRegion},
		{Key: "eks:k8s_version", Message: "Kubernetes version of EKS", Help: "a minor version EKS supports, " + oldestVersion + " or later",
			Default: providers.Constant(eks.DefaultVersion), Validate: k8sVersion},
		{Key: "eks:instance_type", Message: "EC2 instance type of the nodes", Default: providers.Constant("t2.large"),
			Validate: providers.Matches(`^[a-z][a-z0-9-]*\.[a-z0-9]+$`, "an EC2 instance type such as t2.large")},
		{Key: "eks:min_size", Message: "Minimum number of nodes", Default: providers.Constant("3"), Validate: count},
		{Key: "eks:max_size", Message: "Maximum number of nodes", Default: providers.Constant("12"), Validate: count},
		{Key: "eks:desired_capacity", Message: "Desired number of nodes", Default: providers.Constant("3"), Validate: count},
	}
}

// validate checks the config as a whole: the node counts against each
// other, the VPC's range against the zones, and the ingress controller's
// image origin.
func validate(get func(string) (string, bool)) error {
	var errs []error
	if err := nodeCounts(get); err != nil {
		errs = append(errs, err)
	}
	if origin, ok := get("kic:image_origin"); ok && strings.TrimSpace(origin) == "source" {
		errs = append(errs, fmt.Errorf("kic:image_origin is source, but runner builds no images: it deploys a published NGINX Ingress Controller image; "+
			"run `runner config set kic:image_origin registry` and name the image with `runner config set kic:image_name nginx/nginx-ingress:TAG`"))
	}
	cidr, ok := get("vpc:cidr")
	if !ok {
		cidr = awsenv.DefaultCIDR
	}
	if z, ok := get("vpc:azs"); ok && azs(z) == nil {
		if _, _, err := awsenv.Subnets(cidr, len(zones(z))); err != nil {
			errs = append(errs, fmt.Errorf("vpc:cidr and vpc:azs: %w", err))
		}
	}
	if err := projcluster.CheckSettings(get); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// nodeCounts checks the node counts against each other.
func nodeCounts(get func(string) (string, bool)) error {
	n := func(k string) (int, bool) {
		v, ok := get(k)
		if !ok {
			return 0, false
		}
		i, err := strconv.Atoi(v)
		return i, err == nil
	}
	lo, ok1 := n("eks:min_size")
	hi, ok2 := n("eks:max_size")
	want, ok3 := n("eks:desired_capacity")
	if ok1 && ok2 && lo > hi {
		return fmt.Errorf("eks:min_size (%d) is larger than eks:max_size (%d)", lo, hi)
	}
	if ok1 && ok2 && ok3 && (want < lo || want > hi) {
		return fmt.Errorf("eks:desired_capacity (%d) must lie between eks:min_size (%d) and eks:max_size (%d)", want, lo, hi)
	}
	return nil
}

// oldestVersion is the oldest Kubernetes minor version EKS still runs
// (standard and extended support, 2026-11); older versions are refused.
const oldestVersion = "1.30"

var versionRE = regexp.MustCompile(`^1\.(\d+)$`)

// k8sVersion accepts a Kubernetes minor version that EKS still supports.
func k8sVersion(v string) error {
	m := versionRE.FindStringSubmatch(v)
	if m == nil {
		return fmt.Errorf("must be a Kubernetes minor version such as %s, not %q", eks.DefaultVersion, v)
	}
	minor, _ := strconv.Atoi(m[1])
	oldest, _ := strconv.Atoi(strings.TrimPrefix(oldestVersion, "1."))
	if minor < oldest {
		return fmt.Errorf("must be a version EKS still supports (%s or later, such as %s): %s is past EKS support",
			oldestVersion, eks.DefaultVersion, v)
	}
	return nil
}

func count(v string) error {
	i, err := strconv.Atoi(v)
	if err != nil || i < 1 || i > 1000 {
		return fmt.Errorf("must be a whole number of nodes from 1 to 1000, not %q", v)
	}
	return nil
}

// zoneRE matches an availability zone: its region and one letter.
var zoneRE = regexp.MustCompile(`^([a-z]{2}(-gov)?-[a-z]+-\d)[a-z]$`)

// zones splits a comma-separated list of zones (the form a prompt gives; a
// YAML list in the stack config is joined with commas before validation).
func zones(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		out = append(out, strings.TrimSpace(p))
	}
	return out
}

// azs accepts a list of availability zones of one region.
func azs(v string) error {
	region, first := "", ""
	seen := map[string]bool{}
	for _, z := range zones(v) {
		m := zoneRE.FindStringSubmatch(z)
		if m == nil {
			return fmt.Errorf("must be availability zones such as us-east-1a,us-east-1b; %q is not one", z)
		}
		if seen[z] { // its subnets would be declared twice
			return fmt.Errorf("must name each zone once; %s is given twice", z)
		}
		seen[z] = true
		if region == "" {
			region, first = m[1], z
		} else if m[1] != region {
			return fmt.Errorf("must be zones of one region: %s is in %s, %s in %s", first, region, z, m[1])
		}
	}
	if len(seen) < 2 { // EKS refuses a cluster whose subnets are in one zone
		return fmt.Errorf("must be at least two availability zones (EKS needs subnets in two), such as %sa,%sb", region, region)
	}
	return nil
}

// profile accepts a profile name, but not MARA's "none": runner gives
// aws:profile to Pulumi's aws plugin as it is, and the plugin would look
// for a profile named none.
func profile(v string) error {
	if strings.EqualFold(strings.TrimSpace(v), "none") {
		return fmt.Errorf("must name a profile; MARA's \"none\" (no profile) is said by leaving it out: `runner config rm aws:profile`")
	}
	return nil
}

// regionOf returns the region of a valid zone.
func regionOf(zone string) string {
	if m := zoneRE.FindStringSubmatch(zone); m != nil {
		return m[1]
	}
	return ""
}

// zonesInRegion checks that every zone of v is in aws:region, when set.
func zonesInRegion(v string, get func(string) (string, bool)) error {
	region, ok := get("aws:region")
	if !ok || region == "" {
		return nil
	}
	for _, z := range zones(v) {
		if r := regionOf(z); r != "" && r != region {
			return fmt.Errorf("the zone %s is in region %s, not in aws:region %s; give zones of %s (such as %sa,%sb) or set aws:region to %s",
				z, r, region, region, region, region, r)
		}
	}
	return nil
}

// regionOfZones is the default region when vpc:azs is already answered:
// the zones' own region, whatever AWS_DEFAULT_REGION says.
func regionOfZones(get func(string) (string, bool)) string {
	v, ok := get("vpc:azs")
	if !ok || azs(v) != nil {
		return ""
	}
	return regionOf(zones(v)[0])
}
