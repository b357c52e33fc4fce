package aws

import (
	"context"
	"fmt"
	"os"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/projects/aws/eks"
	"github.com/runnerhq/runner/providers"
	k8s "github.com/runnerhq/runner/providers/cluster"
)

// updateKubeconfig is the eks project's on_success hook: it adds the
// cluster to the user's kubeconfig (the first file of $KUBECONFIG, else
// ~/.kube/config) as `aws eks update-kubeconfig` does, without the aws
// CLI: the cluster, user and context are named by the cluster's ARN, the
// file's other entries stay, and the user is an exec entry that runs
// runner's eks-token command (eks.ExecCommand: "runner" when PATH finds
// this binary, else its absolute path). The context becomes current only
// when it is added or its entries change, and the log says so: a run that
// changes nothing leaves the file, and the user's current context, alone.
func updateKubeconfig(ctx context.Context, in providers.HookInput) error {
	out := func(key string) string {
		s, _ := in.Outputs.String(key, "")
		return s
	}
	command, err := eks.ExecCommand(in.Runtime.Executable, os.Getenv("PATH"))
	if err != nil {
		return err
	}
	a := eks.Access{Name: out("cluster_name"), ARN: out("cluster_arn"), Endpoint: out("endpoint"),
		CertificateAuthority: out("certificate_authority"), Region: out("region"),
		Profile: eks.Profile(configString(in.Config, "aws:profile")), Executable: command}
	if a.Region == "" {
		a.Region = configString(in.Config, "aws:region")
	}
	if a.Name == "" || a.Endpoint == "" {
		return fmt.Errorf("the eks project exported no cluster_name or endpoint, so the kubeconfig cannot be updated")
	}
	path, err := kubeconfigPath(in.Env)
	if err != nil {
		return err
	}
	e := k8s.Entry{Context: a.EntryName(), Cluster: a.EntryName(), User: a.EntryName(), ClusterValue: a.Cluster(), UserValue: a.User()}
	change, err := k8s.MergeKubeconfig(path, e)
	if err != nil {
		return err
	}
	k8s.LogChange(in.Log, change, e, path)
	return nil
}

func configString(cfg map[string]any, key string) string {
	v, _ := resource.Unsecret(cfg[key])
	s, _ := v.(string)
	return s
}

// kubeconfigPath is the kubeconfig to write: the first file of
// $KUBECONFIG, else ~/.kube/config, from the run's environment.
func kubeconfigPath(env map[string]string) (string, error) {
	return k8s.KubeconfigPath(env, "EKS cluster")
}
