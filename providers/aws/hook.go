package aws

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"

	"gopkg.in/yaml.v3"

	"github.com/runnerhq/runner/engine/atomicfile"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/internal/boundedfile"
	"github.com/runnerhq/runner/projects/aws/eks"
	projcluster "github.com/runnerhq/runner/projects/cluster"
	"github.com/runnerhq/runner/providers"
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
	change, err := mergeKubeconfig(path, a)
	if err != nil {
		return err
	}
	switch change {
	case entryAdded:
		fmt.Fprintf(in.Log, "Added new context %s in %s; it is now the current context\n", a.EntryName(), path)
	case entryChanged:
		fmt.Fprintf(in.Log, "Updated context %s in %s; it is now the current context\n", a.EntryName(), path)
	default:
		fmt.Fprintf(in.Log, "Context %s in %s is up to date; the current context was left as it is\n", a.EntryName(), path)
	}
	return nil
}

// entryChange is what mergeKubeconfig did to the cluster's entries.
type entryChange int

const (
	entrySame    entryChange = iota // all three as they were: the file was not written
	entryAdded                      // the context is new
	entryChanged                    // an entry was added or differed
)

func configString(cfg map[string]any, key string) string {
	v, _ := resource.Unsecret(cfg[key])
	s, _ := v.(string)
	return s
}

// kubeconfigPath is the kubeconfig to write: the first file of
// $KUBECONFIG, else ~/.kube/config, from the run's environment
// (cluster.DefaultKubeconfigPath, as the kubeconfig provider reads it).
func kubeconfigPath(env map[string]string) (string, error) {
	getenv := os.Getenv
	if env != nil {
		getenv = func(k string) string { return env[k] }
	}
	if p := projcluster.DefaultKubeconfigPath(getenv); p != "" {
		return p, nil
	}
	return "", errors.New("neither KUBECONFIG nor HOME is set, so there is no kubeconfig to add the EKS cluster to; set KUBECONFIG to a file")
}

// mergeKubeconfig adds or replaces a's cluster, user and context in the
// kubeconfig at path (created when missing) and, when one of them was
// added or differed, makes the context current and writes the file
// atomically with mode 0600; otherwise the file is not written. A file
// that is not a kubeconfig is refused, naming its line, and left as it is.
func mergeKubeconfig(path string, a eks.Access) (change entryChange, err error) {
	path, err = linkTarget(path) // replace the link's target, keep the link
	if err != nil {
		return entrySame, err
	}
	data, err := boundedfile.ReadFile(path, boundedfile.Kubeconfig)
	if boundedfile.IsRefused(err) {
		return entrySame, fmt.Errorf("%w; it was left as it was: set KUBECONFIG to a kubeconfig file and run up again", err)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return entrySame, fmt.Errorf("reading the kubeconfig: %w; set KUBECONFIG to a kubeconfig file and run up again", err)
	}
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := parseKubeconfig(data, &doc); err != nil {
			return entrySame, fmt.Errorf("the kubeconfig %s %w; it was left as it was: fix it, or set KUBECONFIG to another file, and run up again", path, err)
		}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if doc.Kind != yaml.DocumentNode || root.Kind != yaml.MappingNode {
		return entrySame, fmt.Errorf("%s line %d: the kubeconfig is not a YAML mapping; it was left as it was: fix it, or set KUBECONFIG to another file", path, root.Line)
	}
	setDefault(root, "apiVersion", "v1")
	setDefault(root, "kind", "Config")
	name := a.EntryName()
	for _, e := range []struct {
		list, key string
		value     map[string]any
	}{{"clusters", "cluster", a.Cluster()}, {"users", "user", a.User()}, {"contexts", "context", a.Context()}} {
		isNew, changed, err := upsert(root, e.list, name, e.key, e.value)
		if err != nil {
			return entrySame, fmt.Errorf("%s %w; it was left as it was: fix it, or set KUBECONFIG to another file", path, err)
		}
		switch {
		case isNew && e.list == "contexts":
			change = entryAdded
		case changed && change == entrySame:
			change = entryChanged
		}
	}
	if change == entrySame {
		return entrySame, nil
	}
	setScalar(root, "current-context", name)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return entrySame, fmt.Errorf("writing the kubeconfig %s: %w", path, err)
	}
	if err := atomicfile.Write(path, buf.Bytes(), 0o600); err != nil {
		return entrySame, fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return change, nil
}

// lookup returns the value node of key in mapping m (nil: none).
func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }

// setScalar sets key of mapping m to the string v.
func setScalar(m *yaml.Node, key, v string) {
	if n := lookup(m, key); n != nil {
		*n = *scalar(v)
		return
	}
	m.Content = append(m.Content, scalar(key), scalar(v))
}

// setDefault sets key of mapping m to v when it is missing.
func setDefault(m *yaml.Node, key, v string) {
	if lookup(m, key) == nil {
		setScalar(m, key, v)
	}
}

// upsert replaces the entry named name of the list of mapping m with
// {name, key: value}, or appends it (isNew). changed says the entry is new
// or was different.
func upsert(m *yaml.Node, list, name, key string, value map[string]any) (isNew, changed bool, err error) {
	var entry yaml.Node
	if err := entry.Encode(map[string]any{"name": name, key: value}); err != nil {
		return false, false, err
	}
	seq := lookup(m, list)
	switch {
	case seq == nil:
		seq = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		m.Content = append(m.Content, scalar(list), seq)
	case seq.Kind == yaml.ScalarNode && seq.Tag == "!!null":
		*seq = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	case seq.Kind != yaml.SequenceNode:
		return false, false, fmt.Errorf("line %d: %s is not a list", seq.Line, list)
	}
	seq.Style &^= yaml.FlowStyle
	for i, item := range seq.Content {
		if item.Kind != yaml.MappingNode {
			return false, false, fmt.Errorf("line %d: an entry of %s is not a mapping", item.Line, list)
		}
		if n := lookup(item, "name"); n != nil && n.Value == name {
			if sameNode(item, &entry) {
				return false, false, nil
			}
			seq.Content[i] = &entry
			return false, true, nil
		}
	}
	seq.Content = append(seq.Content, &entry)
	return true, true, nil
}

// sameNode reports whether two YAML nodes hold the same value (styles,
// comments and key order aside).
func sameNode(a, b *yaml.Node) bool {
	var va, vb any
	if a.Decode(&va) != nil || b.Decode(&vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// linkTarget follows the symbolic links of path to the file they end at,
// existing or not (a link to a kubeconfig not made yet stays a link).
func linkTarget(path string) (string, error) {
	for range 40 {
		info, err := os.Lstat(path)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("reading the kubeconfig's link: %w", err)
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		path = to
	}
	return "", fmt.Errorf("the kubeconfig %s is a loop of symbolic links; set KUBECONFIG to a kubeconfig file", path)
}

// parseKubeconfig parses data into doc, refusing what cannot be merged
// into without losing or guessing: invalid YAML, a second document, a key
// written twice in a mapping (kubectl and runner would read different
// entries).
func parseKubeconfig(data []byte, doc *yaml.Node) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(doc); err != nil {
		return fmt.Errorf("is not valid YAML (%w)", err)
	}
	for {
		var next yaml.Node
		switch err := dec.Decode(&next); {
		case errors.Is(err, io.EOF):
			return duplicateKey(doc)
		case err != nil:
			return fmt.Errorf("is not valid YAML (%w)", err)
		case len(next.Content) > 0 && next.Content[0].Tag != "!!null":
			return fmt.Errorf("line %d: a second YAML document starts there, and a kubeconfig is one", next.Line)
		}
	}
}

// duplicateKey returns an error naming a key written twice in a mapping
// of n, with both lines.
func duplicateKey(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if first, dup := seen[k.Value]; dup {
				return fmt.Errorf("line %d: the key %s is written twice, on lines %d and %d", k.Line, k.Value, first, k.Line)
			}
			seen[k.Value] = k.Line
		}
	}
	for _, c := range n.Content {
		if err := duplicateKey(c); err != nil {
			return err
		}
	}
	return nil
}
