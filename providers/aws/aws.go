// Package aws is the definition of MARA's AWS environment: its projects
// (VPC, EKS and ECR, then the Kubernetes layers and the Bank of Sirius
// application that every provider with a cluster shares), the edges
// between them, MARA's config questions and their validation, and the
// eks project's hook that adds the cluster to the user's kubeconfig. Its
// resources are those of Pulumi's aws and kubernetes plugins.
package aws

import (
	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/projects/aws/ecr"
	"github.com/runnerhq/runner/projects/aws/eks"
	"github.com/runnerhq/runner/projects/aws/vpc"
	"github.com/runnerhq/runner/projects/cluster"
	"github.com/runnerhq/runner/providers"
	k8s "github.com/runnerhq/runner/providers/cluster"
)

// Name is the provider's name.
const Name = "aws"

// New returns the aws provider.
func New() *providers.Provider {
	return &providers.Provider{
		Name:        Name,
		Description: "MARA's AWS environment: VPC, EKS, ECR, NGINX ingress, logging, monitoring and Bank of Sirius (needs AWS credentials and the aws and kubernetes plugins)",
		Projects:    projects(),
		Questions:   append(questions(), k8s.Questions()...),
		Validate:    validate,
		Plugins:     plugins(),
	}
}

// credentialsHelp is what to set when the aws plugin refuses its
// configuration (most often: no credentials).
const credentialsHelp = "the aws plugin needs AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY " +
	"(and AWS_SESSION_TOKEN for temporary keys) in the environment or the workspace's environment file, " +
	"or set aws:profile (`runner config set aws:profile NAME`) to a profile of ~/.aws/credentials or ~/.aws/config (keys, a role, SSO after `aws sso login`, or credential_process); " +
	"the region is aws:region"

// plugins are the Pulumi resource plugins of MARA's AWS projects, at the
// versions whose schemas the projects' resources were checked against
// (@pulumi/aws 7.48.0 and @pulumi/kubernetes 4.34.2).
func plugins() []providers.PluginSpec {
	return []providers.PluginSpec{
		{Name: "aws", Version: "7.48.0", Help: credentialsHelp, StackConfig: true},
		k8s.KubernetesPlugin(),
	}
}

// projects are MARA's AWS projects: vpc, eks and ecr, then the shared
// Kubernetes projects after kubeconfig, which re-exports the eks project's
// kubeconfig. MARA's kic-image-build and kic-image-push are gone: the
// ingress controller runs a published image (kic:image_name).
func projects() []providers.Project {
	inf := providers.Infrastructure
	own := []providers.Project{
		{Name: "vpc", Category: inf, Description: "VPC, public and private subnets per zone, internet and NAT gateways",
			Program: providers.StaticProgram(vpc.Program)},
		{Name: "eks", Category: inf, Description: "EKS cluster, its IAM roles and a managed node group", DependsOn: []string{"vpc"},
			Program:   func(rt providers.Runtime) engine.Program { return eks.Program(rt.Executable) },
			OnSuccess: updateKubeconfig},
		{Name: "ecr", Category: inf, Description: "ECR repository for ingress controller images (force-deleted on destroy)",
			Program: providers.StaticProgram(ecr.Program)},
	}
	kubeconfig := providers.Project{Description: "kubeconfig of the EKS cluster (from eks)", DependsOn: []string{"eks"},
		Program: providers.StaticProgram(cluster.FromProject("eks"))}
	return append(own, k8s.Projects(kubeconfig)...)
}
