package pulumiproject

import "gopkg.in/yaml.v3"

// pair is one key and its value in a mapping, aliases resolved.
type pair struct{ k, v *yaml.Node }

// pairs returns the keys and values of mapping m with YAML merge keys
// (`<<: *base`, `<<: [*a, *b]`) expanded, as the Pulumi CLI reads
// Pulumi.yaml: a key written in m wins over a merged one, and of merged
// mappings the first that has a key gives it.
func pairs(m *yaml.Node) []pair {
	m = deref(m)
	explicit := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := deref(m.Content[i]); !isMerge(k) {
			explicit[k.Value] = true
		}
	}
	var out []pair
	merged := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := deref(m.Content[i]), deref(m.Content[i+1])
		if !isMerge(k) {
			out = append(out, pair{k, v})
			continue
		}
		for _, src := range mergeSources(v) {
			for _, p := range pairs(src) {
				if !explicit[p.k.Value] && !merged[p.k.Value] {
					merged[p.k.Value] = true
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// isMerge reports whether k is a merge key (<<).
func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && (k.Tag == "!!merge" || k.Value == "<<" && k.Style == 0)
}

// mergeSources returns the mappings a merge key's value names: one
// mapping, or a sequence of them (anything else merges nothing).
func mergeSources(v *yaml.Node) []*yaml.Node {
	switch v.Kind {
	case yaml.MappingNode:
		return []*yaml.Node{v}
	case yaml.SequenceNode:
		var out []*yaml.Node
		for _, n := range v.Content {
			if n = deref(n); n.Kind == yaml.MappingNode {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}
