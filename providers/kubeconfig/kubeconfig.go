// Package kubeconfig is the provider of a Kubernetes cluster the user
// already has (MARA did this only in bash, bin/start_kube.sh): a context
// of a kubeconfig file, then the shared Kubernetes projects (NGINX
// ingress, logging, cert-manager, monitoring, OpenTelemetry, Bank of
// Sirius) deployed to it through Pulumi's kubernetes plugin.
package kubeconfig

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/runnerhq/runner/engine"
	projcluster "github.com/runnerhq/runner/projects/cluster"
	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/providers/cluster"
)

// Name is the provider's name.
const Name = "kubeconfig"

// New returns the kubeconfig provider.
func New() *providers.Provider {
	return &providers.Provider{
		Name: Name,
		Description: "a Kubernetes cluster you already have (a context of your kubeconfig file): NGINX ingress, logging, " +
			"monitoring and Bank of Sirius; needs the kubernetes plugin",
		Projects: cluster.Projects(providers.Project{
			Description: "the kubeconfig of the chosen context of your kubeconfig file (kubernetes:kubeconfig, kubernetes:context_name)",
			Program:     func(providers.Runtime) engine.Program { return projcluster.FromFile() },
		}),
		Questions: questions(),
		Validate:  validate,
		Plugins:   []providers.PluginSpec{cluster.KubernetesPlugin()},
	}
}

func questions() []providers.Question {
	qs := []providers.Question{
		{Key: projcluster.KubeconfigPathKey, Message: "Path of your cluster's kubeconfig file",
			Help:    "the file kubectl reads: the first path of $KUBECONFIG, else ~/.kube/config",
			Default: projcluster.DefaultKubeconfigPath, Validate: kubeconfigFile},
		{Key: projcluster.ContextKey, Message: "Context of the kubeconfig file to deploy to",
			Help:        "runner deploys to this context's cluster as its user",
			ChoicesFrom: contextNames, DefaultFrom: currentContext, Agrees: contextInFile},
		{Key: projcluster.ClusterNameKey, Message: "Name of the cluster",
			Help:        "the name the projects know the cluster by; the context's cluster by default",
			DefaultFrom: contextCluster, Validate: providers.NonEmpty},
		{Key: "kic-helm:fqdn", Message: "Host name of the ingress controller (empty: its load balancer's)",
			Help:     "a DNS name pointing at the ingress controller's load balancer, under which Bank of Sirius is served",
			Optional: true, Validate: hostname},
	}
	return append(qs, cluster.Questions()...)
}

// validate checks the Kubernetes projects' settings as a whole; the file
// and its context are checked by their own questions (kubeconfigFile,
// contextInFile), before anything runs.
func validate(get func(string) (string, bool)) error {
	return projcluster.CheckSettings(get)
}

// kubeconfigOf reads the file of kubernetes:kubeconfig.
func kubeconfigOf(get func(string) (string, bool)) (*projcluster.Kubeconfig, error) {
	path, ok := get(projcluster.KubeconfigPathKey)
	if !ok || strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("%s is not set: give the path of your cluster's kubeconfig file", projcluster.KubeconfigPathKey)
	}
	return projcluster.ReadKubeconfig(expand(path))
}

func expand(path string) string {
	home, _ := os.UserHomeDir()
	return projcluster.ExpandHome(strings.TrimSpace(path), home)
}

// kubeconfigFile accepts the path of a kubeconfig file.
func kubeconfigFile(path string) error {
	if strings.TrimSpace(path) == "" {
		return fmt.Errorf("must not be empty")
	}
	if _, err := projcluster.ReadKubeconfig(expand(path)); err != nil {
		return fmt.Errorf("must name a kubeconfig file: %w", err)
	}
	return nil
}

// contextNames lists the contexts of the file (none when it cannot be read:
// the path's own validation says why).
func contextNames(get func(string) (string, bool)) []string {
	k, err := kubeconfigOf(get)
	if err != nil {
		return nil
	}
	return k.ContextNames()
}

// currentContext is the file's current-context.
func currentContext(get func(string) (string, bool)) string {
	k, err := kubeconfigOf(get)
	if err != nil {
		return ""
	}
	return k.CurrentContext()
}

// contextInFile checks that the file has the context.
func contextInFile(name string, get func(string) (string, bool)) error {
	k, err := kubeconfigOf(get)
	if err != nil {
		return nil // the path's validation says why
	}
	_, err = k.Usable(name)
	return err
}

// contextCluster is the chosen context's cluster.
func contextCluster(get func(string) (string, bool)) string {
	k, err := kubeconfigOf(get)
	if err != nil {
		return ""
	}
	name, _ := get(projcluster.ContextKey)
	c, err := k.Context(name)
	if err != nil {
		return ""
	}
	return c.Cluster
}

var dnsName = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?\.)*[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// hostname accepts a DNS name such as demo.example.com.
func hostname(v string) error {
	if len(v) > 253 || !dnsName.MatchString(v) {
		return fmt.Errorf("must be a DNS name such as demo.example.com, not %q", v)
	}
	return nil
}
