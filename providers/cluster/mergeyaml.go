package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"

	"gopkg.in/yaml.v3"
)

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
