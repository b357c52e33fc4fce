package config

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Set stores value under key (with path, a --path key); with secret it is
// encrypted by c. New keys go at the end; an existing key keeps its place
// and its comments.
func (s *Stack) Set(ctx context.Context, key, value string, secret, path bool, c *Crypter) error {
	top, segs := key, []segment(nil)
	var err error
	if path {
		if top, segs, err = parsePath(key); err != nil {
			return err
		}
	} else if !strings.Contains(key, ":") || strings.HasPrefix(key, ":") || strings.HasSuffix(key, ":") {
		return fmt.Errorf("the key %q must be namespace:key, such as app:port", key)
	}
	leaf := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
	if path && !secret {
		// With --path, values are typed as YAML would read them (3 is a number).
		leaf.Tag = ""
		_ = leaf.Encode(yamlScalar(value))
	}
	if secret {
		if c == nil {
			return errors.New("a secret needs the stack's passphrase")
		}
		ct, err := c.EncryptValue(ctx, value)
		if err != nil {
			return fmt.Errorf("encrypting %s: %w", key, err)
		}
		leaf = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "secure"},
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: ct},
		}}
	}
	cfg := s.config(true)
	_, v := s.lookup(top)
	if len(segs) == 0 {
		if v != nil {
			keepComments(leaf, v)
			*v = *leaf
		} else {
			cfg.Content = append(cfg.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: top}, leaf)
		}
		s.changed = true
		return nil
	}
	if v == nil {
		v = container(segs[0])
		cfg.Content = append(cfg.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: top}, v)
	}
	for i, sg := range segs {
		last := i == len(segs)-1
		next := leaf
		if !last {
			next = container(segs[i+1])
		}
		v, err = step(v, sg, next, last, key)
		if err != nil {
			return err
		}
	}
	s.changed = true
	return nil
}

func yamlScalar(v string) any {
	var x any
	if err := yaml.Unmarshal([]byte(v), &x); err != nil {
		return v
	}
	switch x.(type) {
	case int, float64, bool:
		return x
	}
	return v
}

func keepComments(dst, src *yaml.Node) {
	dst.HeadComment, dst.LineComment, dst.FootComment = src.HeadComment, src.LineComment, src.FootComment
}

// container returns an empty node that can hold sg.
func container(sg segment) *yaml.Node {
	if sg.isIdx {
		return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	}
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
}

// step descends from v along sg, creating what is missing; at the last step
// it stores leaf.
func step(v *yaml.Node, sg segment, next *yaml.Node, last bool, key string) (*yaml.Node, error) {
	if sg.isIdx {
		if v.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("%s: [%d] indexes a value that is not a list", key, sg.index)
		}
		switch {
		case sg.index < len(v.Content):
			if last {
				keepComments(next, v.Content[sg.index])
				*v.Content[sg.index] = *next
			}
			return v.Content[sg.index], nil
		case sg.index == len(v.Content):
			v.Content = append(v.Content, next)
			return next, nil
		}
		return nil, fmt.Errorf("%s: index %d is past the end of a list of %d", key, sg.index, len(v.Content))
	}
	if v.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: %q names a field of a value that is not an object", key, sg.key)
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		if v.Content[i].Value == sg.key {
			if last {
				keepComments(next, v.Content[i+1])
				*v.Content[i+1] = *next
			}
			return v.Content[i+1], nil
		}
	}
	v.Content = append(v.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: sg.key}, next)
	return next, nil
}

// Remove deletes key (with path, one element of a structured value). It
// reports whether something was removed.
func (s *Stack) Remove(key string, path bool) (bool, error) {
	top, segs := key, []segment(nil)
	var err error
	if path {
		if top, segs, err = parsePath(key); err != nil {
			return false, err
		}
	}
	cfg := s.config(false)
	if cfg == nil {
		return false, nil
	}
	if len(segs) == 0 {
		for i := 0; i+1 < len(cfg.Content); i += 2 {
			if cfg.Content[i].Value == top {
				cfg.Content = append(cfg.Content[:i], cfg.Content[i+2:]...)
				s.changed = true
				return true, nil
			}
		}
		return false, nil
	}
	_, v := s.lookup(top)
	for _, sg := range segs[:len(segs)-1] {
		if v == nil {
			return false, nil
		}
		v = child(v, sg)
	}
	if v == nil {
		return false, nil
	}
	lastSeg := segs[len(segs)-1]
	if lastSeg.isIdx {
		if v.Kind == yaml.SequenceNode && lastSeg.index < len(v.Content) {
			v.Content = append(v.Content[:lastSeg.index], v.Content[lastSeg.index+1:]...)
			s.changed = true
			return true, nil
		}
		return false, nil
	}
	if v.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(v.Content); i += 2 {
			if v.Content[i].Value == lastSeg.key {
				v.Content = append(v.Content[:i], v.Content[i+2:]...)
				s.changed = true
				return true, nil
			}
		}
	}
	return false, nil
}
