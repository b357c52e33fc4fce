package cluster

import (
	"fmt"
	"os"

	"github.com/runnerhq/runner/engine"
)

// The config keys of a cluster the user brings (the kubeconfig provider),
// MARA's names.
const (
	// KubeconfigPathKey is the path of the kubeconfig file.
	KubeconfigPathKey = "kubernetes:kubeconfig"
	// ContextKey is the context of the file to deploy to.
	ContextKey = "kubernetes:context_name"
	// ClusterNameKey is the cluster's name (default: the context's cluster).
	ClusterNameKey = "kubernetes:cluster_name"
)

// FromProject is the kubeconfig project of a provider that creates its
// cluster: it re-exports the kubeconfig (secret) and the cluster name that
// project exports (eks, say) as KubeconfigOutput and ClusterNameOutput.
func FromProject(project string) engine.Program {
	return func(ctx *engine.Context) error {
		ref := ctx.StackReference(project)
		ctx.Export(KubeconfigOutput, engine.Secret(ref.Output(KubeconfigOutput)))
		ctx.Export(ClusterNameOutput, ref.Output(ClusterNameOutput))
		return nil
	}
}

// FromFile is the kubeconfig project of a cluster the user brings: it
// reads the kubeconfig file of KubeconfigPathKey when the program runs and
// exports it cut down to the context of ContextKey (secret: it holds the
// credentials) as KubeconfigOutput, and ClusterNameKey (default: the
// context's cluster) as ClusterNameOutput.
func FromFile() engine.Program {
	return func(ctx *engine.Context) error {
		kubeconfig, clusterName, err := fromFile(ctx)
		if err != nil {
			return err
		}
		ctx.Export(KubeconfigOutput, engine.Secret(kubeconfig))
		ctx.Export(ClusterNameOutput, clusterName)
		return nil
	}
}

// fromFile reads the configured file and returns the kubeconfig of the
// chosen context and the cluster's name.
func fromFile(ctx *engine.Context) (kubeconfig, clusterName string, err error) {
	path, err := setting(ctx, KubeconfigPathKey, "")
	if err != nil {
		return "", "", err
	}
	if path == "" {
		return "", "", fmt.Errorf("%s is not set: give the path of your cluster's kubeconfig file", KubeconfigPathKey)
	}
	path = ExpandHome(path, os.Getenv("HOME"))
	name, err := setting(ctx, ContextKey, "")
	if err != nil {
		return "", "", err
	}
	k, err := ReadKubeconfig(path)
	if err != nil {
		return "", "", err
	}
	if name == "" {
		return "", "", fmt.Errorf("%s is not set: choose one of the contexts of %s: %v", ContextKey, path, k.ContextNames())
	}
	c, err := k.Usable(name)
	if err != nil {
		return "", "", err
	}
	if kubeconfig, err = k.Minify(name); err != nil {
		return "", "", err
	}
	if clusterName, err = setting(ctx, ClusterNameKey, c.Cluster); err != nil {
		return "", "", err
	}
	return kubeconfig, clusterName, nil
}
