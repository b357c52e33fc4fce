// Package aws is the definition of MARA's AWS environment: its projects
// (VPC, EKS and ECR, then the Kubernetes layers and the Bank of Sirius
// application), the edges between them, and MARA's config questions and
// secrets. `show` and `validate` work fully; deploying needs an AWS
// resource plugin that runner does not have yet, so operations stop before
// changing anything.
package aws

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/runnerhq/runner/providers"
)

// Name is the provider's name.
const Name = "aws"

// NotDeployable is what preview, up, refresh and destroy say for now.
const NotDeployable = "the aws provider can show and validate its projects, but deploying needs the AWS resource plugin, which runner does not have yet; nothing was changed"

// New returns the aws provider.
func New() *providers.Provider {
	return &providers.Provider{
		Name:          Name,
		Description:   "MARA's AWS environment: VPC, EKS, ECR, NGINX ingress, logging, monitoring and Bank of Sirius (definition only: deploying needs the AWS plugin)",
		NotDeployable: NotDeployable,
		Projects:      projects(),
		Questions:     questions(),
		Validate:      validate,
		Plugins:       plugins(),
	}
}

// plugins are the Pulumi resource plugins of MARA's AWS projects, at the
// versions whose schemas the projects' resources were checked against
// (@pulumi/aws 7.48.0 and @pulumi/kubernetes 4.34.2).
func plugins() []providers.PluginSpec {
	return []providers.PluginSpec{
		{Name: "aws", Version: "7.48.0"},
		{Name: "kubernetes", Version: "4.34.2"},
	}
}

// projects are MARA's AWS projects in MARA's order. Each DependsOn names
// the projects whose stack outputs the MARA program reads (its
// StackReferences), plus, where noted, what must run first for the
// program's resources to be accepted by the cluster: MARA ran everything in
// one sequence and so never had to say so.
func projects() []providers.Project {
	inf, k8s, application := providers.Infrastructure, providers.Kubernetes, providers.Application
	return []providers.Project{
		{Name: "vpc", Category: inf, Description: "VPC, subnets and gateways"},
		{Name: "eks", Category: inf, Description: "EKS cluster and node group", DependsOn: []string{"vpc"},
			OnSuccess: updateKubeconfig},
		{Name: "ecr", Category: inf, Description: "ECR repository for the ingress controller image"},
		{Name: "kubeconfig", Category: k8s, Description: "kubeconfig for the EKS cluster", DependsOn: []string{"eks"}},
		{Name: "secrets", Category: k8s, Description: "Kubernetes secrets from the stack config", DependsOn: []string{"kubeconfig"}},
		{Name: "kic-image-build", Category: k8s, Description: "build or pull the NGINX Ingress Controller image"},
		{Name: "kic-image-push", Category: k8s, Description: "push the controller image to ECR", DependsOn: []string{"kic-image-build", "ecr"}},
		{Name: "ingress-controller-namespace", Category: k8s, Description: "namespace of the ingress controller", DependsOn: []string{"kubeconfig"}},
		{Name: "ingress-controller", Category: k8s, Description: "NGINX Ingress Controller (Helm)",
			DependsOn: []string{"kubeconfig", "ingress-controller-namespace", "kic-image-push"}},
		{Name: "logstore", Category: k8s, Description: "Elasticsearch log store (Helm)", DependsOn: []string{"kubeconfig"}},
		{Name: "logagent", Category: k8s, Description: "Filebeat log agent (Helm)", DependsOn: []string{"kubeconfig", "logstore"}},
		{Name: "certmgr", Category: k8s, Description: "cert-manager (Helm)", DependsOn: []string{"kubeconfig"}},
		{Name: "prometheus", Category: k8s, Description: "Prometheus and Grafana (Helm)", DependsOn: []string{"kubeconfig", "secrets"}},
		// The OpenTelemetry operator's webhook certificates come from cert-manager.
		{Name: "observability", Category: k8s, Description: "OpenTelemetry operator and collector", DependsOn: []string{"kubeconfig", "certmgr"}},
		// Sirius also uses cert-manager's ClusterIssuer, the prometheus
		// namespace (its database exporters) and the OpenTelemetry collector.
		{Name: "sirius", Category: application, Description: "Bank of Sirius demo application",
			DependsOn: []string{"kubeconfig", "secrets", "ingress-controller", "certmgr", "prometheus", "observability"}},
	}
}

func questions() []providers.Question {
	return []providers.Question{
		{Key: "aws:region", Message: "AWS region", Help: "the region of every AWS resource",
			DefaultFrom: regionOfZones,
			Default: func(env func(string) string) string {
				if r := env("AWS_DEFAULT_REGION"); r != "" {
					return r
				}
				return "us-east-1"
			}, Validate: matches(`^[a-z]{2}(-gov)?-[a-z]+-\d$`, "an AWS region such as us-east-1")},
		{Key: "aws:profile", Message: "AWS profile", Help: "the profile of ~/.aws/config to use (empty: the default credentials)",
			Default: func(env func(string) string) string { return env("AWS_PROFILE") }, Optional: true},
		{Key: "vpc:azs", Message: "Availability zones (comma-separated)", Help: "the zones of the VPC's subnets, in the region aws:region, e.g. us-east-1a,us-east-1b",
			Validate: azs, Agrees: zonesInRegion},
		{Key: "eks:k8s_version", Message: "Kubernetes version of EKS", Default: constant("1.21"),
			Validate: matches(`^1\.\d+$`, "a Kubernetes minor version such as 1.21")},
		{Key: "eks:instance_type", Message: "EC2 instance type of the nodes", Default: constant("t2.large"),
			Validate: matches(`^[a-z][a-z0-9-]*\.[a-z0-9]+$`, "an EC2 instance type such as t2.large")},
		{Key: "eks:min_size", Message: "Minimum number of nodes", Default: constant("3"), Validate: count},
		{Key: "eks:max_size", Message: "Maximum number of nodes", Default: constant("12"), Validate: count},
		{Key: "eks:desired_capacity", Message: "Desired number of nodes", Default: constant("3"), Validate: count},
		{Key: "prometheus:adminpass", Message: "Password of the Grafana/Prometheus admin user", Secret: true, Validate: nonEmpty},
		{Key: "sirius:accounts_pwd", Message: "Password of the Bank of Sirius accounts database", Secret: true, Validate: nonEmpty},
		{Key: "sirius:ledger_pwd", Message: "Password of the Bank of Sirius ledger database", Secret: true, Validate: nonEmpty},
		{Key: "sirius:demo_login_user", Message: "User name of the Bank of Sirius demo login", Default: constant("testuser"), Validate: nonEmpty},
		{Key: "sirius:demo_login_pwd", Message: "Password of the Bank of Sirius demo login", Secret: true, Validate: nonEmpty},
	}
}

// validate checks the node counts against each other.
func validate(get func(string) (string, bool)) error {
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

func constant(v string) func(func(string) string) string {
	return func(func(string) string) string { return v }
}

func matches(pattern, what string) func(string) error {
	re := regexp.MustCompile(pattern)
	return func(v string) error {
		if !re.MatchString(v) {
			return fmt.Errorf("must be %s, not %q", what, v)
		}
		return nil
	}
}

func nonEmpty(v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("must not be empty")
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
	for _, z := range zones(v) {
		m := zoneRE.FindStringSubmatch(z)
		if m == nil {
			return fmt.Errorf("must be availability zones such as us-east-1a,us-east-1b; %q is not one", z)
		}
		if region == "" {
			region, first = m[1], z
		} else if m[1] != region {
			return fmt.Errorf("must be zones of one region: %s is in %s, %s in %s", first, region, z, m[1])
		}
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
