package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// Stack is a stack config file, Pulumi.<stack>.yaml, kept as a YAML node
// tree so that writing it back keeps comments and key order.
type Stack struct {
	Path string
	// src is the file as last read or written (its blank lines are kept).
	src     []byte
	doc     yaml.Node
	changed bool
}

// Entry is one top-level config key.
type Entry struct {
	Key string
	// Value is the plain value: a string for scalars (as written), or a
	// structured value (map[string]any, []any). Nil for a secure value.
	Value any
	// Secure is set for {secure: ...} values; Ciphertext holds the ciphertext.
	Secure     bool
	Ciphertext string
	// Structured values may hold secure leaves.
	Structured bool
	Line       int
}

// Problem is something in the file runner cannot accept, with its line.
type Problem struct {
	Key  string
	Line int
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("line %d: %s: %s", p.Line, p.Key, p.Msg) }

// LoadStack reads a stack config; a missing file is an empty config that
// does not exist yet (UpdateStack creates it).
func LoadStack(path string) (*Stack, error) {
	data, err := boundedfile.ReadFile(path, boundedfile.StackConfig)
	if boundedfile.IsRefused(err) {
		return nil, err
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("reading the stack config: %w", err)
	}
	return ParseStack(path, data) // a missing file parses as an empty one
}

// ParseStack parses the bytes of a stack config named name.
func ParseStack(name string, data []byte) (*Stack, error) {
	s := &Stack{Path: name, src: data}
	if err := yaml.Unmarshal(data, &s.doc); err != nil {
		return nil, yamlError(name, data, err)
	}
	if s.doc.Kind == 0 { // empty file
		s.doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := s.root()
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, &ParseError{File: name, Line: lineOf(s.doc.Content), Msg: "a stack config must be a mapping with encryptionsalt: and config:"}
	}
	if err := checkDuplicates(name, root, ""); err != nil {
		return nil, err
	}
	if err := checkAliases(name, root); err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "config":
			if v.Kind != yaml.MappingNode && !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
				return nil, &ParseError{File: name, Line: v.Line, Msg: "config: must hold namespace:key entries"}
			}
		case "encryptionsalt":
			if v.Kind != yaml.ScalarNode {
				return nil, &ParseError{File: name, Line: v.Line, Msg: "encryptionsalt: must be a string"}
			}
		}
	}
	return s, nil
}

func (s *Stack) root() *yaml.Node {
	if len(s.doc.Content) == 0 {
		return nil
	}
	return s.doc.Content[0]
}

// field returns the value node of a top-level field, creating an empty
// mapping when create is set.
func (s *Stack) field(name string, create bool) *yaml.Node {
	root := s.root()
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == name {
			v := root.Content[i+1]
			if create && v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				*v = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			}
			return v
		}
	}
	if !create {
		return nil
	}
	v := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, v)
	return v
}

func (s *Stack) config(create bool) *yaml.Node {
	n := s.field("config", create)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	return n
}

// EncryptionSalt returns the encryptionsalt value ("" when there is none;
// an empty or null encryptionsalt: counts as none).
func (s *Stack) EncryptionSalt() string {
	if n := s.field("encryptionsalt", false); n != nil && n.ShortTag() != "!!null" {
		return n.Value
	}
	return ""
}

// SetEncryptionSalt sets the encryptionsalt value, in its place when the
// key is there (even empty), else first in the file. The value is written
// as a plain string.
func (s *Stack) SetEncryptionSalt(v string) {
	if n := s.field("encryptionsalt", false); n != nil {
		n.Kind, n.Tag, n.Style, n.Value = yaml.ScalarNode, "!!str", 0, v
	} else {
		root := s.root()
		root.Content = append([]*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "encryptionsalt"},
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: v},
		}, root.Content...)
	}
	s.changed = true
}

// Entries returns every top-level config key in file order.
func (s *Stack) Entries() []Entry {
	cfg := s.config(false)
	if cfg == nil {
		return nil
	}
	out := make([]Entry, 0, len(cfg.Content)/2)
	for i := 0; i+1 < len(cfg.Content); i += 2 {
		out = append(out, entryOf(cfg.Content[i], cfg.Content[i+1]))
	}
	return out
}

func entryOf(k, v *yaml.Node) Entry {
	e := Entry{Key: k.Value, Line: k.Line}
	if ct, ok := secureValue(v); ok {
		e.Secure, e.Ciphertext = true, ct
		return e
	}
	if v.Kind == yaml.ScalarNode {
		e.Value = v.Value
		return e
	}
	e.Structured = true
	e.Value = plain(v)
	return e
}

// secureValue recognises {secure: <ciphertext>}.
func secureValue(v *yaml.Node) (string, bool) {
	if v.Kind == yaml.MappingNode && len(v.Content) == 2 && v.Content[0].Value == "secure" && v.Content[1].Kind == yaml.ScalarNode {
		return v.Content[1].Value, true
	}
	return "", false
}

// plain converts a node to Go values; scalars stay strings as written,
// secure leaves become map[string]any{"secure": ciphertext}.
func plain(v *yaml.Node) any {
	switch v.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(v.Content)/2)
		for i := 0; i+1 < len(v.Content); i += 2 {
			m[v.Content[i].Value] = plain(v.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, len(v.Content))
		for i, e := range v.Content {
			l[i] = plain(e)
		}
		return l
	case yaml.AliasNode:
		return plain(v.Alias)
	}
	if v.Tag == "!!null" {
		return nil
	}
	return v.Value
}

// lookup returns the key and value nodes of a top-level key.
func (s *Stack) lookup(key string) (*yaml.Node, *yaml.Node) {
	cfg := s.config(false)
	if cfg == nil {
		return nil, nil
	}
	for i := 0; i+1 < len(cfg.Content); i += 2 {
		if cfg.Content[i].Value == key {
			return cfg.Content[i], cfg.Content[i+1]
		}
	}
	return nil, nil
}

// Problems lists what runner cannot accept in the file: keys without a
// namespace (namespace:key), with the line of each.
func (s *Stack) Problems() []Problem {
	var out []Problem
	for _, e := range s.Entries() {
		ns, name, ok := strings.Cut(e.Key, ":")
		switch {
		case !ok:
			hint := ""
			if i := strings.Index(e.Key, "."); i > 0 {
				hint = fmt.Sprintf(" (did you mean %s:%s?)", e.Key[:i], e.Key[i+1:])
			}
			out = append(out, Problem{Key: e.Key, Line: e.Line, Msg: "a config key must be namespace:key" + hint})
		case ns == "" || name == "":
			out = append(out, Problem{Key: e.Key, Line: e.Line, Msg: "a config key needs both a namespace and a name"})
		}
	}
	return out
}

// Changed reports whether the config differs from the file.
func (s *Stack) Changed() bool { return s.changed }

// Bytes returns the file's YAML.
func (s *Stack) Bytes() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&s.doc); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", s.Path, err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if len(s.src) > 0 {
		return keepBlankLines(s.src, b.Bytes()), nil
	}
	return b.Bytes(), nil
}

// save writes the file atomically (the mode of an existing file is kept; a
// new one is 0600, as it may hold ciphertexts). Callers hold the file's
// lock: see UpdateStack.
func (s *Stack) save() error {
	data, err := s.Bytes()
	if err != nil {
		return err
	}
	if err := writeAtomic(s.Path, data, 0o600); err != nil {
		return err
	}
	s.changed, s.src = false, data
	return nil
}

// Values returns every config value for programs and hooks: scalars as
// strings, structured values as maps and lists, secrets decrypted into
// Secret values (nil c: an error for any secret).
func (s *Stack) Values(ctx context.Context, c *Crypter) (map[string]any, error) {
	out := map[string]any{}
	for _, e := range s.Entries() {
		v, _, err := s.Get(ctx, e.Key, false, c)
		if err != nil {
			return nil, err
		}
		out[e.Key] = v
	}
	return out, nil
}

// Keys returns the top-level keys, sorted.
func (s *Stack) Keys() []string {
	var out []string
	for _, e := range s.Entries() {
		out = append(out, e.Key)
	}
	sort.Strings(out)
	return out
}

// Line returns the line of a top-level key (0 when absent).
func (s *Stack) Line(key string) int {
	k, _ := s.lookup(key)
	if k == nil {
		return 0
	}
	return k.Line
}

// SecretEntries returns the top-level keys that hold a secure value (a
// secret, or a structured value with a secret inside), in file order.
func (s *Stack) SecretEntries() []Entry {
	cfg := s.config(false)
	if cfg == nil {
		return nil
	}
	var out []Entry
	for i := 0; i+1 < len(cfg.Content); i += 2 {
		if holdsSecure(cfg.Content[i+1]) {
			out = append(out, entryOf(cfg.Content[i], cfg.Content[i+1]))
		}
	}
	return out
}

// holdsSecure reports whether v is or holds a {secure: ...} value.
func holdsSecure(v *yaml.Node) bool {
	if _, ok := secureValue(v); ok {
		return true
	}
	if v.Kind != yaml.MappingNode && v.Kind != yaml.SequenceNode {
		return false
	}
	for _, c := range v.Content {
		if holdsSecure(c) {
			return true
		}
	}
	return false
}
