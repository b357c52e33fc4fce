package aws_test

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/projects/aws/ecr"
	"github.com/runnerhq/runner/projects/aws/eks"
)

var vpcOutputs = map[string]resource.PropertyMap{"vpc": {
	"vpc_id": "vpc-1", "public_subnet_ids": []any{"pub-a", "pub-b"}, "private_subnet_ids": []any{"priv-a", "priv-b"},
}}

func eksConfig(extra map[string]any) map[string]any {
	cfg := map[string]any{"aws:region": "us-west-1", "eks:k8s_version": "1.34", "eks:instance_type": "m5.large",
		"eks:min_size": "2", "eks:max_size": "5", "eks:desired_capacity": "3"}
	for k, v := range extra {
		cfg[k] = v
	}
	return cfg
}

func TestEKS(t *testing.T) {
	d, err := deploy(t, eks.Program("/opt/bin/runner"), eksConfig(nil), vpcOutputs, false)
	if err != nil {
		t.Fatal(err)
	}
	c := d.inputs["cluster"]
	vpcConfig, _ := c["vpcConfig"].(map[string]any)
	access, _ := c["accessConfig"].(map[string]any)
	if c["name"] != "mara-dev" || c["version"] != "1.34" || c["roleArn"] != "arn:aws:fake::123456789012:cluster-role" ||
		!reflect.DeepEqual(vpcConfig["subnetIds"], []any{"pub-a", "pub-b", "priv-a", "priv-b"}) ||
		access["authenticationMode"] != "API_AND_CONFIG_MAP" || access["bootstrapClusterCreatorAdminPermissions"] != true {
		t.Errorf("cluster inputs %v", c)
	}
	n := d.inputs["nodes"]
	if !reflect.DeepEqual(n["scalingConfig"], map[string]any{"minSize": 2.0, "maxSize": 5.0, "desiredSize": 3.0}) ||
		!reflect.DeepEqual(n["subnetIds"], []any{"priv-a", "priv-b"}) || !reflect.DeepEqual(n["instanceTypes"], []any{"m5.large"}) ||
		n["clusterName"] != "mara-dev" || n["nodeRoleArn"] != "arn:aws:fake::123456789012:node-role" {
		t.Errorf("node group inputs %v", n)
	}
	var policies []string
	for _, name := range d.ofType("aws:iam/rolePolicyAttachment:RolePolicyAttachment") {
		policies = append(policies, d.inputs[name]["role"].(string)+" "+d.inputs[name]["policyArn"].(string))
	}
	sort.Strings(policies)
	want := []string{
		"name-of-cluster-role arn:aws:iam::aws:policy/AmazonEKSClusterPolicy",
		"name-of-node-role arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
		"name-of-node-role arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
		"name-of-node-role arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
	}
	if !reflect.DeepEqual(policies, want) {
		t.Errorf("policy attachments %v", policies)
	}
	for role, service := range map[string]string{"cluster-role": "eks.amazonaws.com", "node-role": "ec2.amazonaws.com"} {
		if p, _ := d.inputs[role]["assumeRolePolicy"].(string); !strings.Contains(p, `"Service":"`+service+`"`) || !strings.Contains(p, "sts:AssumeRole") {
			t.Errorf("%s trust policy %s", role, p)
		}
	}

	var names []string
	for k := range d.outputs {
		names = append(names, k)
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "certificate_authority cluster_arn cluster_name endpoint kubeconfig node_group_name region" {
		t.Errorf("outputs %s", got)
	}
	if d.outputs["certificate_authority"] != "Q0EtREFUQQ==" || d.outputs["region"] != "us-west-1" || d.outputs["node_group_name"] != "nodeGroupName-of-nodes" {
		t.Errorf("outputs %v", d.outputs)
	}
	kc, ok := d.outputs["kubeconfig"].(resource.Secret)
	if !ok {
		t.Fatalf("kubeconfig is not secret: %T", d.outputs["kubeconfig"])
	}
	checkKubeconfig(t, kc.Element.(string), []any{"eks-token", "--cluster-name", "mara-dev", "--region", "us-west-1"}, nil)
}

// checkKubeconfig parses a kubeconfig of the fake cluster and checks its
// names, server, CA and exec entry.
func checkKubeconfig(t *testing.T, text string, args []any, env any) {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("kubeconfig is not YAML: %v\n%s", err, text)
	}
	arn := "arn:aws:fake::123456789012:cluster"
	cluster := doc["clusters"].([]any)[0].(map[string]any)
	user := doc["users"].([]any)[0].(map[string]any)
	ctx := doc["contexts"].([]any)[0].(map[string]any)
	exec := user["user"].(map[string]any)["exec"].(map[string]any)
	if doc["current-context"] != arn || cluster["name"] != arn || user["name"] != arn || ctx["name"] != arn ||
		cluster["cluster"].(map[string]any)["server"] != "https://cluster.eks.example" ||
		cluster["cluster"].(map[string]any)["certificate-authority-data"] != "Q0EtREFUQQ==" ||
		!reflect.DeepEqual(ctx["context"], map[string]any{"cluster": arn, "user": arn}) {
		t.Errorf("kubeconfig:\n%s", text)
	}
	if exec["apiVersion"] != "client.authentication.k8s.io/v1beta1" || exec["command"] != "/opt/bin/runner" ||
		!reflect.DeepEqual(exec["args"], args) || !reflect.DeepEqual(exec["env"], env) {
		t.Errorf("exec entry %v", exec)
	}
}

func TestEKSSettings(t *testing.T) {
	tests := []struct {
		name string
		cfg  map[string]any
		err  string
		args []any
		env  any
		arn  string
	}{
		{"profile", eksConfig(map[string]any{"aws:profile": "myProfile"}), "",
			[]any{"eks-token", "--cluster-name", "mara-dev", "--region", "us-west-1", "--profile", "myProfile"},
			[]any{map[string]any{"name": "AWS_PROFILE", "value": "myProfile"}}, ""},
		{"MARA's none profile", eksConfig(map[string]any{"aws:profile": "none"}), "",
			[]any{"eks-token", "--cluster-name", "mara-dev", "--region", "us-west-1"}, nil, ""},
		{"defaults", map[string]any{"aws:region": "us-gov-west-1"}, "", nil, nil, "arn:aws-us-gov:iam::aws:policy/AmazonEKSClusterPolicy"},
		{"no region", map[string]any{}, "aws:region is missing", nil, nil, ""},
		{"bad count", eksConfig(map[string]any{"eks:min_size": "three"}), "eks:min_size must be a whole number", nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := deploy(t, eks.Program("/opt/bin/runner"), tt.cfg, vpcOutputs, false)
			wantErr(t, err, tt.err)
			if tt.args != nil {
				checkKubeconfig(t, d.outputs["kubeconfig"].(resource.Secret).Element.(string), tt.args, tt.env)
			}
			if tt.arn != "" {
				if d.inputs["cluster-AmazonEKSClusterPolicy"]["policyArn"] != tt.arn || d.inputs["cluster"]["version"] != eks.DefaultVersion ||
					!reflect.DeepEqual(d.inputs["nodes"]["instanceTypes"], []any{"t2.large"}) {
					t.Errorf("defaults: %v %v", d.inputs["cluster"], d.inputs["nodes"])
				}
			}
		})
	}
}

// TestEKSPreviewOfAFreshStack: the vpc project was never deployed, so its
// outputs and the cluster's are unknown; the kubeconfig is unknown and
// secret.
func TestEKSPreviewOfAFreshStack(t *testing.T) {
	d, err := deploy(t, eks.Program("/opt/bin/runner"), eksConfig(nil), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.inputs["nodes"]["subnetIds"].(resource.Computed); !ok {
		t.Errorf("subnets in preview: %v", d.inputs["nodes"]["subnetIds"])
	}
	if kc, _ := resource.UnsecretDeep(d.outputs["kubeconfig"]); kc != (resource.Computed{}) {
		t.Errorf("kubeconfig in preview: %#v", d.outputs["kubeconfig"])
	}
}

func TestECR(t *testing.T) {
	d, err := deploy(t, ecr.Program, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	r := d.inputs["ingress-controller"]
	if r["forceDelete"] != true || r["name"] != "ingress-controller-dev" ||
		!reflect.DeepEqual(r["imageScanningConfiguration"], map[string]any{"scanOnPush": true}) {
		t.Errorf("repository inputs %v", r)
	}
	want := resource.PropertyMap{"repository_url": "repositoryUrl-of-ingress-controller",
		"repository_name": "ingress-controller-dev", "registry_id": "registryId-of-ingress-controller"}
	if !reflect.DeepEqual(d.outputs, want) {
		t.Errorf("outputs %v", d.outputs)
	}
}
