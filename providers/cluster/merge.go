package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

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
	Same        Change = iota // all three as they were: the file was not written
	Added                     // the context is new
	Changed                   // an entry was added or differed
	MadeCurrent               // all three as they were; the context was made current
)

// KubeconfigPath is the kubeconfig a cluster hook writes: the first file of
// $KUBECONFIG, else ~/.kube/config, from the run's environment env (the
// process's when nil), as the kubeconfig provider reads it. what names the
// cluster in the error when there is none.
func KubeconfigPath(env map[string]string, what string) (string, error) {
	getenv := envGetter(env)
	if p := projcluster.DefaultKubeconfigPath(getenv); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("neither KUBECONFIG nor HOME is set, so there is no kubeconfig to add the %s to; set KUBECONFIG to a file", what)
}

// KubeconfigFor is the kubeconfig a cluster hook merges e into, from the
// run's environment env (the process's when nil): the first file of
// $KUBECONFIG that holds e's context, else its cluster (as kubectl writes
// an entry where it is, and MARA's update_kubeconfig chose the file that
// held the cluster), else the first file of $KUBECONFIG, else
// ~/.kube/config. Files that cannot be read as kubeconfigs are passed
// over here (the merge refuses the chosen one). what names the cluster in
// the error when there is no file at all.
func KubeconfigFor(env map[string]string, what string, e Entry) (string, error) {
	getenv := envGetter(env)
	var withCluster string
	for _, p := range filepath.SplitList(getenv("KUBECONFIG")) {
		if p == "" {
			continue
		}
		p = projcluster.ExpandHome(p, getenv("HOME"))
		contexts, clusters := kubeconfigNames(p)
		if slices.Contains(contexts, e.Context) {
			return p, nil
		}
		if withCluster == "" && slices.Contains(clusters, e.Cluster) {
			withCluster = p
		}
	}
	if withCluster != "" {
		return withCluster, nil
	}
	return KubeconfigPath(env, what)
}

// kubeconfigNames returns the names of the contexts and clusters of the
// kubeconfig at path (none when it cannot be read as one).
func kubeconfigNames(path string) (contexts, clusters []string) {
	data, err := boundedfile.ReadFile(path, boundedfile.Kubeconfig)
	if err != nil {
		return nil, nil
	}
	var k struct {
		Contexts []struct {
			Name string `yaml:"name"`
		} `yaml:"contexts"`
		Clusters []struct {
			Name string `yaml:"name"`
		} `yaml:"clusters"`
	}
	if yaml.Unmarshal(data, &k) != nil {
		return nil, nil
	}
	for _, c := range k.Contexts {
		contexts = append(contexts, c.Name)
	}
	for _, c := range k.Clusters {
		clusters = append(clusters, c.Name)
	}
	return contexts, clusters
}

// envGetter reads the run's environment env (the process's when nil).
func envGetter(env map[string]string) func(string) string {
	if env == nil {
		return os.Getenv
	}
	return func(k string) string { return env[k] }
}

// LogChange writes to log what MergeKubeconfig did to the context of e in
// the file at path.
func LogChange(log io.Writer, change Change, e Entry, path string) {
	switch change {
	case Added:
		fmt.Fprintf(log, "Added new context %s in %s; it is now the current context\n", e.Context, path)
	case Changed:
		fmt.Fprintf(log, "Updated context %s in %s; it is now the current context\n", e.Context, path)
	case MadeCurrent:
		fmt.Fprintf(log, "Context %s in %s is up to date; it is now the current context again\n", e.Context, path)
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
func MergeKubeconfig(path string, e Entry) (Change, error) { return Merge(path, e, false) }

// Merge is MergeKubeconfig; with current, the context is made current
// even when its entries are as they were (as MARA's update_kubeconfig
// did), and the file is then written when it was not current.
func Merge(path string, e Entry, current bool) (change Change, err error) {
	path, err = linkTarget(path)
	if err != nil {
		return Same, err
	}
	doc, err := readKubeconfig(path)
	if err != nil {
		return Same, err
	}
	root := doc.Content[0]
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
		if n := lookup(root, "current-context"); !current || (n != nil && n.Value == e.Context) {
			return Same, nil
		}
		change = MadeCurrent
	}
	setScalar(root, "current-context", e.Context)
	if err := writeKubeconfig(path, doc); err != nil {
		return Same, err
	}
	return change, nil
}

// writeKubeconfig writes the kubeconfig document doc to path atomically,
// with mode 0600.
func writeKubeconfig(path string, doc *yaml.Node) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing the kubeconfig %s: %w", path, err)
	}
	if err := atomicfile.Write(path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return nil
}

// readKubeconfig reads the kubeconfig at path as a YAML document whose
// root is a mapping (an empty one when the file is missing or empty).
func readKubeconfig(path string) (*yaml.Node, error) {
	data, err := boundedfile.ReadFile(path, boundedfile.Kubeconfig)
	if boundedfile.IsRefused(err) {
		return nil, fmt.Errorf("%w; it was left as it was: set KUBECONFIG to a kubeconfig file and run up again", err)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading the kubeconfig: %w; set KUBECONFIG to a kubeconfig file and run up again", err)
	}
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := parseKubeconfig(data, &doc); err != nil {
			return nil, fmt.Errorf("the kubeconfig %s %w; it was left as it was: fix it, or set KUBECONFIG to another file, and run up again", path, err)
		}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	if root := doc.Content[0]; doc.Kind != yaml.DocumentNode || root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s line %d: the kubeconfig is not a YAML mapping; it was left as it was: fix it, or set KUBECONFIG to another file", path, root.Line)
	}
	return &doc, nil
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
