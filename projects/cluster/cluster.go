// Package cluster holds the programs of the Kubernetes layers that every
// infrastructure provider yielding a cluster shares (aws, kubeconfig, later
// do and linode): secrets, the NGINX ingress controller, logging,
// cert-manager, monitoring, OpenTelemetry and the Bank of Sirius
// application. Each reads the cluster's kubeconfig from the kubeconfig
// project and deploys through an explicit Kubernetes provider configured
// with it, using only resources of Pulumi's kubernetes plugin
// (@pulumi/kubernetes 4.34.2): core resources and helm.sh/v3 Releases.
package cluster

import (
	"github.com/runnerhq/runner/engine"
)

// The project every Kubernetes layer reads the cluster from, and its stack
// outputs.
const (
	// KubeconfigProject exports the cluster's kubeconfig and name.
	KubeconfigProject = "kubeconfig"
	// KubeconfigOutput is the kubeconfig (a YAML document; secret).
	KubeconfigOutput = "kubeconfig"
	// ClusterNameOutput is the cluster's name.
	ClusterNameOutput = "cluster_name"
)

// Provider declares the Kubernetes provider of a layer: the kubernetes
// plugin configured with the kubeconfig project's kubeconfig. Every
// Kubernetes resource of the layer names it with engine.Provider.
func Provider(ctx *engine.Context) *engine.Resource {
	kc := ctx.StackReference(KubeconfigProject)
	return ctx.Resource("pulumi:providers:kubernetes", "cluster", engine.Inputs{
		"kubeconfig": kc.Output(KubeconfigOutput),
	})
}
