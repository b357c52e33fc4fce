// Package eks is the aws provider's Kubernetes cluster: the IAM roles of
// the cluster and of its nodes with AWS's managed policies, the EKS
// cluster (eks:k8s_version) in the vpc project's subnets, reachable by the
// deployer through the EKS access entry its creator gets (authentication
// mode API_AND_CONFIG_MAP also keeps an aws-auth config map, which runner
// does not manage), and a managed node group in the private subnets (eks:instance_type,
// eks:min_size, eks:max_size, eks:desired_capacity).
package eks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/projects/aws/awsenv"
)

// The resource types the program declares (Pulumi's aws provider).
const (
	roleType       = "aws:iam/role:Role"
	attachmentType = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
	clusterType    = "aws:eks/cluster:Cluster"
	nodeGroupType  = "aws:eks/nodeGroup:NodeGroup"
)

// Defaults of the eks:* config, as MARA's but for the Kubernetes version
// (MARA's 1.21 is long out of EKS support).
const (
	DefaultVersion      = "1.34"
	DefaultInstanceType = "t2.large"
)

// settings are the eks:* config values.
type settings struct {
	version, instanceType, region, profile string
	min, max, desired                      int
}

// Program declares the cluster; executable is the runner binary, which the
// kubeconfig's exec entry runs for tokens (as ExecCommand names it on the
// PATH of runner's own environment, the user's). Outputs: cluster_name,
// cluster_arn, endpoint, certificate_authority (base64 PEM), region,
// kubeconfig (secret), node_group_name.
func Program(executable string) engine.Program {
	return func(ctx *engine.Context) error {
		s, err := readSettings(ctx)
		if err != nil {
			return err
		}
		command, err := ExecCommand(executable, os.Getenv("PATH"))
		if err != nil {
			return err
		}
		vpc := ctx.StackReference("vpc")
		part := partition(s.region)
		clusterRole, clusterPolicies := role(ctx, "cluster", "eks.amazonaws.com", part, "AmazonEKSClusterPolicy")
		nodeRole, nodePolicies := role(ctx, "node", "ec2.amazonaws.com", part,
			"AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy", "AmazonEC2ContainerRegistryReadOnly")

		subnets := engine.All(vpc.Output("public_subnet_ids"), vpc.Output("private_subnet_ids")).Apply(func(v any) (any, error) {
			var all []any
			for _, l := range v.([]any) {
				ids, ok := l.([]any)
				if !ok {
					return nil, fmt.Errorf("the vpc project's subnet ids are %v, not a list", l)
				}
				all = append(all, ids...)
			}
			return all, nil
		})
		name := awsenv.ClusterName(ctx.Stack())
		cluster := ctx.Resource(clusterType, "cluster", engine.Inputs{
			"name": name, "roleArn": clusterRole.Output("arn"), "version": s.version,
			"vpcConfig": map[string]any{"subnetIds": subnets, "endpointPublicAccess": true, "endpointPrivateAccess": true},
			"accessConfig": map[string]any{
				"authenticationMode":                      "API_AND_CONFIG_MAP",
				"bootstrapClusterCreatorAdminPermissions": true,
			},
			"tags": awsenv.Tags(ctx, name, nil),
		}, engine.DependsOn(clusterPolicies...))
		nodes := ctx.Resource(nodeGroupType, "nodes", engine.Inputs{
			"clusterName": cluster.Output("name"), "nodeRoleArn": nodeRole.Output("arn"),
			"subnetIds":     vpc.Output("private_subnet_ids"),
			"instanceTypes": []any{s.instanceType},
			"scalingConfig": map[string]any{"minSize": float64(s.min), "maxSize": float64(s.max), "desiredSize": float64(s.desired)},
			"tags":          awsenv.Tags(ctx, name+"-nodes", nil),
		}, engine.DependsOn(nodePolicies...))

		ca := cluster.Output("certificateAuthority").Apply(caData)
		ctx.Export("cluster_name", cluster.Output("name"))
		ctx.Export("cluster_arn", cluster.Output("arn"))
		ctx.Export("endpoint", cluster.Output("endpoint"))
		ctx.Export("certificate_authority", ca)
		ctx.Export("region", s.region)
		ctx.Export("node_group_name", nodes.Output("nodeGroupName"))
		kubeconfig := engine.All(cluster.Output("name"), cluster.Output("arn"), cluster.Output("endpoint"), ca).Apply(func(v any) (any, error) {
			vals := v.([]any)
			a := Access{Name: str(vals[0]), ARN: str(vals[1]), Endpoint: str(vals[2]), CertificateAuthority: str(vals[3]),
				Region: s.region, Profile: s.profile, Executable: command}
			return a.Kubeconfig()
		})
		ctx.Export("kubeconfig", engine.Secret(kubeconfig))
		return nil
	}
}

// role declares an IAM role that service may assume and attaches AWS's
// managed policies to it; it returns the role and the attachments.
func role(ctx *engine.Context, name, service, partition string, policies ...string) (*engine.Resource, []*engine.Resource) {
	trust, _ := json.Marshal(map[string]any{
		"Version": "2012-10-17",
		"Statement": []any{map[string]any{
			"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": map[string]any{"Service": service},
		}},
	})
	r := ctx.Resource(roleType, name+"-role", engine.Inputs{
		"assumeRolePolicy": string(trust),
		"description":      fmt.Sprintf("the %s role of EKS cluster %s", name, awsenv.ClusterName(ctx.Stack())),
		"tags":             awsenv.Tags(ctx, awsenv.ClusterName(ctx.Stack())+"-"+name, nil),
	})
	var attachments []*engine.Resource
	for _, p := range policies {
		attachments = append(attachments, ctx.Resource(attachmentType, name+"-"+p, engine.Inputs{
			"role": r.Output("name"), "policyArn": "arn:" + partition + ":iam::aws:policy/" + p,
		}))
	}
	return r, attachments
}

// partition is the AWS partition of region (its ARNs' second field).
func partition(region string) string {
	switch {
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	}
	return "aws"
}

// caData reads the CA certificate out of the cluster's certificateAuthority
// output: an object {data}, or a list of them.
func caData(v any) (any, error) {
	if l, ok := v.([]any); ok && len(l) > 0 {
		v = l[0]
	}
	if m, ok := v.(map[string]any); ok {
		if d, ok := m["data"].(string); ok {
			return d, nil
		}
	}
	return nil, fmt.Errorf("the EKS cluster's certificateAuthority is %v, with no data", v)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// readSettings reads the eks:* config and aws:region and aws:profile.
func readSettings(ctx *engine.Context) (settings, error) {
	var s settings
	var errs []error
	get := func(key, def string) string {
		v, ok, err := ctx.PlainConfig(key)
		if err != nil {
			errs = append(errs, err)
			return def
		}
		if !ok {
			return def
		}
		if str, isString := v.(string); isString {
			return strings.TrimSpace(str)
		}
		errs = append(errs, fmt.Errorf("the config value %s must be a string, not %v", key, v))
		return def
	}
	num := func(key, def string) int {
		v := get(key, def)
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("the config value %s must be a whole number of nodes, not %q", key, v))
		}
		return n
	}
	s.version = get("eks:k8s_version", DefaultVersion)
	s.instanceType = get("eks:instance_type", DefaultInstanceType)
	s.min, s.max, s.desired = num("eks:min_size", "3"), num("eks:max_size", "12"), num("eks:desired_capacity", "3")
	s.region = get("aws:region", "")
	s.profile = Profile(get("aws:profile", ""))
	if s.region == "" {
		errs = append(errs, errors.New("the config value aws:region is missing: set the cluster's region with `runner config set aws:region us-east-1`"))
	}
	return s, errors.Join(errs...)
}
