package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/runnerhq/runner/engine/atomicfile"
	"github.com/runnerhq/runner/internal/boundedfile"
	projcluster "github.com/runnerhq/runner/projects/cluster"
)

// Entry is one cluster as a kubeconfig holds it: the names of its cluster,
// user and context entries and their values. The context names the
// cluster and user entries.
type Entry struct {
	Context, Cluster, User string
	// ClusterValue and UserValue are the values of the "cluster" and
	// "user" keys of their entries.
	ClusterValue, UserValue map[string]any
}

// Change is what MergeKubeconfig did to the cluster's entries.
type Change int

// The changes MergeKubeconfig reports.
const (
	Same    Change = iota // all three as they were: the file was not written
	Added                 // the context is new
	Changed               // an entry was added or differed
)

// KubeconfigPath is the kubeconfig a cluster hook writes: the first file of
// $KUBECONFIG, else ~/.kube/config, from the run's environment env (the
// process's when nil), as the kubeconfig provider reads it. what names the
// cluster in the error when there is none.
func KubeconfigPath(env map[string]string, what string) (string, error) {
	getenv := os.Getenv
	if env != nil {
		getenv = func(k string) string { return env[k] }
	}
	if p := projcluster.DefaultKubeconfigPath(getenv); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("neither KUBECONFIG nor HOME is set, so there is no kubeconfig to add the %s to; set KUBECONFIG to a file", what)
}

// LogChange writes to log what MergeKubeconfig did to the context of e in
// the file at path.
func LogChange(log io.Writer, change Change, e Entry, path string) {
	switch change {
	case Added:
		fmt.Fprintf(log, "Added new context %s in %s; it is now the current context\n", e.Context, path)
	case Changed:
		fmt.Fprintf(log, "Updated context %s in %s; it is now the current context\n", e.Context, path)
	default:
		fmt.Fprintf(log, "Context %s in %s is up to date; the current context was left as it is\n", e.Context, path)
	}
}

// MergeKubeconfig adds or replaces e's cluster, user and context in the
// kubeconfig at path (created when missing) and, when one of them was
// added or differed, makes the context current and writes the file
// atomically with mode 0600; otherwise the file is not written. A file
// that is not a kubeconfig is refused, naming its line, and left as it is.
// A symbolic link is kept: the file it points to is written.
func MergeKubeconfig(path string, e Entry) (change Change, err error) {
	path, err = linkTarget(path)
	if err != nil {
		return Same, err
	}
	data, err := boundedfile.ReadFile(path, boundedfile.Kubeconfig)
	if boundedfile.IsRefused(err) {
		return Same, fmt.Errorf("%w; it was left as it was: set KUBECONFIG to a kubeconfig file and run up again", err)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Same, fmt.Errorf("reading the kubeconfig: %w; set KUBECONFIG to a kubeconfig file and run up again", err)
	}
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := parseKubeconfig(data, &doc); err != nil {
			return Same, fmt.Errorf("the kubeconfig %s %w; it was left as it was: fix it, or set KUBECONFIG to another file, and run up again", path, err)
		}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if doc.Kind != yaml.DocumentNode || root.Kind != yaml.MappingNode {
		return Same, fmt.Errorf("%s line %d: the kubeconfig is not a YAML mapping; it was left as it was: fix it, or set KUBECONFIG to another file", path, root.Line)
	}
	setDefault(root, "apiVersion", "v1")
	setDefault(root, "kind", "Config")
	for _, l := range []struct {
		list, name, key string
		value           map[string]any
	}{{"clusters", e.Cluster, "cluster", e.ClusterValue}, {"users", e.User, "user", e.UserValue},
		{"contexts", e.Context, "context", map[string]any{"cluster": e.Cluster, "user": e.User}}} {
		isNew, changed, err := upsert(root, l.list, l.name, l.key, l.value)
		if err != nil {
			return Same, fmt.Errorf("%s %w; it was left as it was: fix it, or set KUBECONFIG to another file", path, err)
		}
		switch {
		case isNew && l.list == "contexts":
			change = Added
		case changed && change == Same:
			change = Changed
		}
	}
	if change == Same {
		return Same, nil
	}
	setScalar(root, "current-context", e.Context)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return Same, fmt.Errorf("writing the kubeconfig %s: %w", path, err)
	}
	if err := atomicfile.Write(path, buf.Bytes(), 0o600); err != nil {
		return Same, fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return change, nil
}

// EntryOf returns the entry of the current context (the only one, when
// none is current) of the kubeconfig document raw, such as a cloud's
// cluster API gives it. what names its origin in errors.
func EntryOf(raw []byte, what string) (Entry, error) {
	var k struct {
		Current  string `yaml:"current-context"`
		Clusters []struct {
			Name    string         `yaml:"name"`
			Cluster map[string]any `yaml:"cluster"`
		} `yaml:"clusters"`
		Users []struct {
			Name string         `yaml:"name"`
			User map[string]any `yaml:"user"`
		} `yaml:"users"`
		Contexts []struct {
			Name    string `yaml:"name"`
			Context struct {
				Cluster string `yaml:"cluster"`
				User    string `yaml:"user"`
			} `yaml:"context"`
		} `yaml:"contexts"`
	}
	if err := yaml.Unmarshal(raw, &k); err != nil {
		return Entry{}, fmt.Errorf("the kubeconfig of %s is not YAML: %w", what, err)
	}
	var e Entry
	for _, c := range k.Contexts {
		if c.Name == k.Current || (k.Current == "" && len(k.Contexts) == 1) {
			e = Entry{Context: c.Name, Cluster: c.Context.Cluster, User: c.Context.User}
		}
	}
	if e.Context == "" {
		return Entry{}, fmt.Errorf("the kubeconfig of %s has no current context", what)
	}
	for _, c := range k.Clusters {
		if c.Name == e.Cluster {
			e.ClusterValue = c.Cluster
		}
	}
	for _, u := range k.Users {
		if u.Name == e.User {
			e.UserValue = u.User
		}
	}
	if e.ClusterValue == nil || e.UserValue == nil {
		return Entry{}, fmt.Errorf("the kubeconfig of %s lacks the cluster %q or the user %q of its context %s", what, e.Cluster, e.User, e.Context)
	}
	return e, nil
}
