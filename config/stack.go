package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
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
	data, err := os.ReadFile(path)
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

func yamlError(name string, data []byte, err error) error {
	msg := err.Error()
	line := 0
	// yaml.v3 errors read "yaml: line N: ..."
	if i := strings.Index(msg, "line "); i >= 0 {
		rest := msg[i+5:]
		if j := strings.IndexByte(rest, ':'); j > 0 {
			if n, convErr := strconv.Atoi(rest[:j]); convErr == nil {
				line = n
				msg = strings.TrimSpace(rest[j+1:])
				// yaml.v3 counts lines from 0 in its parser errors (not
				// in its scanner errors): "did not find expected ...".
				if strings.HasPrefix(msg, "did not find expected") {
					line++
				}
			}
		}
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	if line == 0 {
		line = errorLineOf(data, msg)
	}
	return &ParseError{File: name, Line: line, Msg: "the YAML is malformed: " + msg + "; fix the file (it was left unchanged)"}
}

// errorLineOf finds the line of a yaml.v3 error that names none: the
// first byte that is not valid UTF-8 or not allowed in YAML, the alias of
// an unknown anchor, or the end of the file where a quoted value was left
// open.
func errorLineOf(data []byte, msg string) int {
	lineAt := func(off int) int { return 1 + bytes.Count(data[:off], []byte("\n")) }
	switch {
	case strings.Contains(msg, "UTF-8"), strings.Contains(msg, "control characters"):
		for off := 0; off < len(data); {
			r, size := utf8.DecodeRune(data[off:])
			if (r == utf8.RuneError && size <= 1) || !yamlPrintable(r) {
				return lineAt(off)
			}
			off += size
		}
	case strings.HasPrefix(msg, "unknown anchor"):
		if name, _, ok := strings.Cut(strings.TrimPrefix(msg, "unknown anchor '"), "'"); ok {
			if off := bytes.Index(data, []byte("*"+name)); off >= 0 {
				return lineAt(off)
			}
		}
	}
	// The end of the file: where an open quote or bracket ran out.
	return lineAt(len(bytes.TrimRight(data, " \t\r\n")))
}

// yamlPrintable reports whether YAML allows r in a file (its c-printable).
func yamlPrintable(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r', r == 0x85:
		return true
	case r >= 0x20 && r <= 0x7e, r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd, r >= 0x10000 && r <= 0x10ffff:
		return true
	}
	return false
}

func lineOf(nodes []*yaml.Node) int {
	if len(nodes) > 0 {
		return nodes[0].Line
	}
	return 0
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
