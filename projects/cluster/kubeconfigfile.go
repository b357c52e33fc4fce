package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// Kubeconfig is a kubeconfig file (what kubectl reads) as the kubeconfig
// provider uses it: its contexts, and the file cut down to one of them.
type Kubeconfig struct {
	// Path is the file's path.
	Path     string
	current  string
	contexts []KubeContext
	doc      map[string]any
}

// KubeContext is a context of a kubeconfig file.
type KubeContext struct {
	Name, Cluster, User string
	// Line is the context's line in the file.
	Line int
	// dangling says what the context names that the file does not define
	// ("" when nothing): kubectl minds it only when the context is used.
	dangling string
}

// kubeFile is the part of a kubeconfig file that is checked.
type kubeFile struct {
	Kind     string      `yaml:"kind"`
	Current  string      `yaml:"current-context"`
	Clusters []namedNode `yaml:"clusters"`
	Users    []namedNode `yaml:"users"`
	Contexts []namedNode `yaml:"contexts"`
}

type namedNode struct {
	Name    string `yaml:"name"`
	Context struct {
		Cluster string `yaml:"cluster"`
		User    string `yaml:"user"`
	} `yaml:"context"`
}

// ReadKubeconfig reads and checks the kubeconfig file at path.
func ReadKubeconfig(path string) (*Kubeconfig, error) {
	data, err := boundedfile.ReadFile(path, boundedfile.Kubeconfig)
	if boundedfile.IsRefused(err) {
		return nil, err
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("the kubeconfig file %s does not exist; give the path of your cluster's kubeconfig in kubernetes:kubeconfig", path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig file: %w", err)
	}
	return ParseKubeconfig(path, data)
}

// ParseKubeconfig checks data, the content of the kubeconfig file at path:
// a YAML document of kind Config with contexts. As with kubectl, a context
// that names a cluster or user the file does not define (left by
// `kubectl config delete-cluster`) spoils only itself: Usable refuses it
// when it is the one chosen. Errors name the path and the line at fault.
func ParseKubeconfig(path string, data []byte) (*Kubeconfig, error) {
	bad := func(line int, format string, args ...any) error {
		return fmt.Errorf("%s is not a kubeconfig file: line %d: %s", path, line, fmt.Sprintf(format, args...))
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s is not a kubeconfig file: %w", path, err)
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, bad(max(root.Line, 1), "a kubeconfig is a YAML mapping with clusters, users and contexts")
	}
	top := root.Content[0]
	var f kubeFile
	if err := top.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s is not a kubeconfig file: %w", path, err)
	}
	if f.Kind != "" && f.Kind != "Config" {
		return nil, bad(lineOf(top, "kind"), "its kind is %q, not Config", f.Kind)
	}
	if len(f.Contexts) == 0 {
		return nil, bad(max(lineOf(top, "contexts"), 1), "it has no contexts")
	}
	clusters, users := names(f.Clusters), names(f.Users)
	items := listItems(top, "contexts")
	k := &Kubeconfig{Path: path, current: f.Current}
	for i, c := range f.Contexts {
		line := lineOf(top, "contexts")
		if i < len(items) {
			line = items[i].Line
		}
		kc := KubeContext{Name: c.Name, Cluster: c.Context.Cluster, User: c.Context.User, Line: line}
		switch {
		case c.Name == "":
			return nil, bad(line, "a context has no name")
		case !clusters[c.Context.Cluster]:
			kc.dangling = fmt.Sprintf("the cluster %q, which the file does not define", c.Context.Cluster)
		case c.Context.User != "" && !users[c.Context.User]:
			kc.dangling = fmt.Sprintf("the user %q, which the file does not define", c.Context.User)
		}
		k.contexts = append(k.contexts, kc)
	}
	if err := top.Decode(&k.doc); err != nil {
		return nil, fmt.Errorf("%s is not a kubeconfig file: %w", path, err)
	}
	return k, nil
}

func names(list []namedNode) map[string]bool {
	out := make(map[string]bool, len(list))
	for _, n := range list {
		out[n.Name] = true
	}
	return out
}

// lineOf returns the line of key's value in mapping m (0: absent).
func lineOf(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return 0
}

// listItems returns the items of the list at key in mapping m.
func listItems(m *yaml.Node, key string) []*yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i+1].Kind == yaml.SequenceNode {
			return m.Content[i+1].Content
		}
	}
	return nil
}

// Contexts returns the file's contexts in file order.
func (k *Kubeconfig) Contexts() []KubeContext { return k.contexts }

// CurrentContext returns the file's current-context ("" for none).
func (k *Kubeconfig) CurrentContext() string { return k.current }

// ContextNames returns the names of the file's contexts, sorted.
func (k *Kubeconfig) ContextNames() []string {
	out := make([]string, len(k.contexts))
	for i, c := range k.contexts {
		out[i] = c.Name
	}
	sort.Strings(out)
	return out
}

// Context returns the context named name, or an error listing the file's.
func (k *Kubeconfig) Context(name string) (KubeContext, error) {
	for _, c := range k.contexts {
		if c.Name == name {
			return c, nil
		}
	}
	return KubeContext{}, fmt.Errorf("the kubeconfig file %s has no context %q; its contexts are: %s", k.Path, name, strings.Join(k.ContextNames(), ", "))
}

// Usable returns the context named name when the file defines its cluster
// and user and the cluster has a server, else an error naming the file,
// the line, the context and what it lacks: the kubernetes plugin refuses
// such a context only once the projects run.
func (k *Kubeconfig) Usable(name string) (KubeContext, error) {
	c, err := k.Context(name)
	if err != nil {
		return c, err
	}
	if c.dangling != "" {
		return c, fmt.Errorf("the kubeconfig file %s: line %d: the context %s names %s; fix the context (kubectl config set-context %s --cluster=... --user=...) or choose another one",
			k.Path, c.Line, name, c.dangling, name)
	}
	for _, e := range pick(k.doc["clusters"], c.Cluster, nil) {
		inner, _ := e.(map[string]any)["cluster"].(map[string]any)
		if s, _ := inner["server"].(string); strings.TrimSpace(s) != "" {
			return c, nil
		}
	}
	return c, fmt.Errorf("the kubeconfig file %s: line %d: the context %s names the cluster %s, which has no server; give it one (kubectl config set-cluster %s --server=https://...) or choose another context",
		k.Path, c.Line, name, c.Cluster, c.Cluster)
}

// Minify returns the file cut down to the context named name, its cluster
// and its user, with current-context set to it, as YAML. Relative paths of
// certificate, key, token files and exec commands are made absolute
// (kubectl reads them relative to the file), so that the result works
// wherever it is written.
func (k *Kubeconfig) Minify(name string) (string, error) {
	c, err := k.Context(name)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(k.Path)
	out := map[string]any{
		"apiVersion":      "v1",
		"kind":            "Config",
		"current-context": c.Name,
		"preferences":     map[string]any{},
		"contexts":        pick(k.doc["contexts"], c.Name, nil),
		"clusters":        pick(k.doc["clusters"], c.Cluster, absolute(dir, "cluster", "certificate-authority")),
		"users":           pick(k.doc["users"], c.User, absolute(dir, "user", "client-certificate", "client-key", "tokenFile")),
	}
	b, err := yaml.Marshal(out)
	if err != nil {
		return "", fmt.Errorf("writing the kubeconfig of context %s: %w", name, err)
	}
	return string(b), nil
}

// pick returns the entries of list named name, each passed through fix.
func pick(list any, name string, fix func(map[string]any)) []any {
	items, _ := list.([]any)
	out := []any{}
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok || m["name"] != name {
			continue
		}
		if fix != nil {
			fix(m)
		}
		out = append(out, m)
	}
	return out
}

// absolute returns a fix that makes the relative paths of the given keys
// of an entry's inner mapping (and an exec command's path) absolute.
func absolute(dir, inner string, keys ...string) func(map[string]any) {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	return func(entry map[string]any) {
		m, ok := entry[inner].(map[string]any)
		if !ok {
			return
		}
		for _, k := range keys {
			if p, ok := m[k].(string); ok {
				m[k] = abs(p)
			}
		}
		if exec, ok := m["exec"].(map[string]any); ok {
			if cmd, ok := exec["command"].(string); ok && strings.ContainsRune(cmd, filepath.Separator) {
				exec["command"] = abs(cmd)
			}
		}
	}
}

// DefaultKubeconfigPath is where kubectl reads its kubeconfig: the first
// path of $KUBECONFIG, else ~/.kube/config ("" when neither is known).
func DefaultKubeconfigPath(env func(string) string) string {
	for _, p := range filepath.SplitList(env("KUBECONFIG")) {
		if p != "" {
			return ExpandHome(p, env("HOME"))
		}
	}
	if home := env("HOME"); home != "" {
		return filepath.Join(home, ".kube", "config")
	}
	return ""
}

// ExpandHome expands a leading ~ of path to home.
func ExpandHome(path, home string) string {
	if home != "" && (path == "~" || strings.HasPrefix(path, "~/")) {
		return filepath.Join(home, strings.TrimPrefix(path, "~"))
	}
	return path
}
