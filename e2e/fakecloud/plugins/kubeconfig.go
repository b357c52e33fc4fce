package plugins

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// kubeconfigFile is the part of a kubeconfig the fake provider reads.
type kubeconfigFile struct {
	CurrentContext string `yaml:"current-context"`
	Contexts       []struct {
		Name    string `yaml:"name"`
		Context struct {
			Cluster   string `yaml:"cluster"`
			Namespace string `yaml:"namespace"`
		} `yaml:"context"`
	} `yaml:"contexts"`
	Clusters []struct {
		Name    string `yaml:"name"`
		Cluster struct {
			Server string `yaml:"server"`
		} `yaml:"cluster"`
	} `yaml:"clusters"`
}

// kubeTarget is the cluster a kubeconfig selects.
type kubeTarget struct {
	context, cluster, server, namespace string
}

// loadKubeconfig reads the kubeconfig the configuration names (config
// kubeconfig: YAML content or a path; else $KUBECONFIG's first file; else
// ~/.kube/config) and resolves the context (config context, else
// current-context) and its cluster (config cluster overrides it): each must
// exist in the file, as client-go demands.
func loadKubeconfig(cfg config) (kubeTarget, error) {
	data, err := kubeconfigData(cfg["kubeconfig"])
	if err != nil {
		return kubeTarget{}, err
	}
	var kc kubeconfigFile
	if err := yaml.Unmarshal(data, &kc); err != nil {
		return kubeTarget{}, fmt.Errorf("failed to parse kubeconfig: %w", err)
	}
	t := kubeTarget{context: firstOf(cfg["context"], kc.CurrentContext)}
	if t.context == "" {
		return t, fmt.Errorf("invalid configuration: no context chosen: the kubeconfig has no current-context; set kubernetes:context")
	}
	found := false
	var names []string
	for _, c := range kc.Contexts {
		names = append(names, c.Name)
		if c.Name == t.context {
			found, t.cluster, t.namespace = true, c.Context.Cluster, c.Context.Namespace
		}
	}
	if !found {
		sort.Strings(names)
		return t, fmt.Errorf("invalid configuration: context was not found for specified context: %s (context %q does not exist in the kubeconfig; it has %s)",
			t.context, t.context, orNone(names))
	}
	t.cluster = firstOf(cfg["cluster"], t.cluster)
	for _, c := range kc.Clusters {
		if c.Name == t.cluster {
			t.server = c.Cluster.Server
		}
	}
	if t.server == "" {
		return t, fmt.Errorf("invalid configuration: cluster %q of context %q does not exist in the kubeconfig or has no server", t.cluster, t.context)
	}
	return t, nil
}

// kubeconfigData returns the kubeconfig content: v itself when it is YAML
// content, else the file v names, else $KUBECONFIG's first file or
// ~/.kube/config.
func kubeconfigData(v string) ([]byte, error) {
	if strings.Contains(v, "\n") || strings.HasPrefix(strings.TrimSpace(v), "{") {
		return []byte(v), nil
	}
	path := v
	if path == "" {
		path, _, _ = strings.Cut(os.Getenv("KUBECONFIG"), string(os.PathListSeparator))
	}
	if path == "" {
		path = homeFile(filepath.Join(".kube", "config"))
	}
	path, err := expandHome(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("unable to read kubeconfig file %s: %w (set kubernetes:kubeconfig to a kubeconfig's path or content)", path, err)
	}
	return data, nil
}

// orNone joins names, or says "no contexts".
func orNone(names []string) string {
	if len(names) == 0 {
		return "no contexts"
	}
	return "contexts " + strings.Join(names, ", ")
}
