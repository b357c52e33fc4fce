package config

import (
	"context"
	"fmt"

	"gopkg.in/yaml.v3"
)

// resolve returns the node of key (with path, a --path key) and the path's
// steps; a nil node when the key is not set.
func (s *Stack) resolve(key string, path bool) (*yaml.Node, []segment, error) {
	top, segs := key, []segment(nil)
	if path {
		var err error
		if top, segs, err = parsePath(key); err != nil {
			return nil, nil, err
		}
	}
	_, v := s.lookup(top)
	for _, sg := range segs {
		if v == nil {
			break
		}
		v = child(v, sg)
	}
	return v, segs, nil
}

// Get returns the value of key (with path, a --path key such as
// ns:data.list[0]), secrets decrypted with c as Secret values (structured
// values hold Secret leaves). ok is false when the key is not set.
func (s *Stack) Get(ctx context.Context, key string, path bool, c *Crypter) (value any, ok bool, err error) {
	v, _, err := s.resolve(key, path)
	if v == nil || err != nil {
		return nil, false, err
	}
	out, err := decrypt(ctx, v, c, key, decodeOpts{})
	return out, err == nil, err
}

// Typed returns the value of key as Pulumi's `config get --json` shows it:
// like Get, but scalars inside a structured value are typed as YAML reads
// them (numbers, true/false, null) rather than kept as written. With a nil
// c, secrets stay encrypted and come back as a Secret that shows
// "[secret]" (its Reveal is empty).
func (s *Stack) Typed(ctx context.Context, key string, path bool, c *Crypter) (value any, ok bool, err error) {
	v, segs, err := s.resolve(key, path)
	if v == nil || err != nil {
		return nil, false, err
	}
	if v.Kind == yaml.ScalarNode && len(segs) == 0 {
		// A top-level scalar is a string, as in Pulumi.
		return plain(v), true, nil
	}
	out, err := decrypt(ctx, v, c, key, decodeOpts{typed: true, redact: c == nil})
	return out, err == nil, err
}

// decodeOpts say how decrypt converts values.
type decodeOpts struct {
	// typed converts scalars to numbers, booleans and null as YAML reads them.
	typed bool
	// redact leaves secrets encrypted, as an empty Secret.
	redact bool
}

// typedScalar converts a scalar node as YAML reads it.
func typedScalar(v *yaml.Node) any {
	switch v.ShortTag() {
	case "!!int", "!!float", "!!bool", "!!null":
		var x any
		if err := v.Decode(&x); err == nil {
			return x
		}
	}
	return v.Value
}

// decrypt converts a node to Go values with secure leaves decrypted.
func decrypt(ctx context.Context, v *yaml.Node, c *Crypter, key string, o decodeOpts) (any, error) {
	if ct, ok := secureValue(v); ok {
		if o.redact {
			return NewSecret(""), nil
		}
		if c == nil {
			return nil, fmt.Errorf("%s is a secret; the passphrase is needed to read it", key)
		}
		pt, err := c.DecryptValue(ctx, ct)
		if err != nil {
			return nil, fmt.Errorf("decrypting %s: %w", key, err)
		}
		return NewSecret(pt), nil
	}
	switch v.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(v.Content)/2)
		for i := 0; i+1 < len(v.Content); i += 2 {
			x, err := decrypt(ctx, v.Content[i+1], c, key+"."+v.Content[i].Value, o)
			if err != nil {
				return nil, err
			}
			m[v.Content[i].Value] = x
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, len(v.Content))
		for i, e := range v.Content {
			x, err := decrypt(ctx, e, c, fmt.Sprintf("%s[%d]", key, i), o)
			if err != nil {
				return nil, err
			}
			l[i] = x
		}
		return l, nil
	case yaml.AliasNode:
		return decrypt(ctx, v.Alias, c, key, o)
	}
	if o.typed {
		return typedScalar(v), nil
	}
	return plain(v), nil
}

func child(v *yaml.Node, sg segment) *yaml.Node {
	if sg.isIdx {
		if v.Kind == yaml.SequenceNode && sg.index < len(v.Content) {
			return v.Content[sg.index]
		}
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		if v.Content[i].Value == sg.key {
			return v.Content[i+1]
		}
	}
	return nil
}
