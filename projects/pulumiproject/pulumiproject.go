// Package pulumiproject reads a user's Pulumi project folder: its
// Pulumi.yaml (name, runtime, main, stackConfigDir and the config block)
// as the Pulumi CLI reads it.
package pulumiproject

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// Project is a Pulumi project folder.
type Project struct {
	// File is the absolute path of its Pulumi.yaml; Dir its folder.
	File, Dir string
	Name      string
	// Runtime is the runtime's name (yaml, nodejs, go, python, ...) and
	// Options its runtime.options.
	Runtime string
	Options map[string]any
	// Main is Pulumi.yaml's main ("" for none), written at MainLine.
	Main     string
	MainLine int
	// StackConfigDir is the absolute folder of the project's own
	// Pulumi.<stack>.yaml files (Dir unless stackConfigDir says otherwise).
	StackConfigDir string
	// Config is the config block, in file order.
	Config []ConfigKey
}

// ConfigKey is one key of Pulumi.yaml's config block.
type ConfigKey struct {
	// Key is the full key, "namespace:name" (a key without a namespace is
	// the project's own).
	Key         string
	Type        string // string, integer, boolean, array, object ("": any)
	Description string
	// Default is the value used when no stack config sets one; HasDefault
	// says there is one.
	Default    any
	HasDefault bool
	Secret     bool
	Line       int
}

// Required says a value must come from a stack config: Pulumi requires a
// key that declares a type and has no default.
func (k ConfigKey) Required() bool { return !k.HasDefault }

// Error is a problem of a Pulumi.yaml, with its line (0: the file as a
// whole).
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// FileName is the project file of a Pulumi project folder.
const FileName = "Pulumi.yaml"

// nameRE is Pulumi's rule for project names, less a first '.' or '-':
// runner's backends keep state in a folder or key of that name.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$`)

// Load reads the Pulumi.yaml (or Pulumi.yml) of dir. Every problem is an
// *Error naming the file and line; they are joined so that one run names
// all of them.
func Load(dir string) (*Project, error) {
	file := filepath.Join(dir, FileName)
	data, err := boundedfile.ReadFile(file, boundedfile.Project)
	if errors.Is(err, os.ErrNotExist) {
		alt := filepath.Join(dir, "Pulumi.yml")
		if d2, err2 := boundedfile.ReadFile(alt, boundedfile.Project); !errors.Is(err2, os.ErrNotExist) {
			file, data, err = alt, d2, err2
		}
	}
	if boundedfile.IsRefused(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("reading the project file: %w", err)
	}
	return Parse(file, data)
}

// Parse reads a Pulumi.yaml's content; file is its path (for messages and
// to resolve main and stackConfigDir).
func Parse(file string, data []byte) (*Project, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(file, err)
	}
	if len(doc.Content) == 0 || deref(doc.Content[0]).Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: 1, Msg: "must be a mapping with at least name: and runtime:"}
	}
	p := &Project{File: file, Dir: filepath.Dir(file)}
	r := &reader{p: p}
	root := deref(doc.Content[0])
	seen := map[string]bool{}
	for _, kv := range pairs(root) {
		k, v := kv.k, kv.v
		if seen[k.Value] {
			r.fail(k.Line, "the key %s is written twice", k.Value)
			continue
		}
		seen[k.Value] = true
		r.top(k, v)
	}
	if p.Name == "" && !seen["name"] {
		r.fail(root.Line, "name: is missing; every Pulumi project has a name")
	}
	if p.Runtime == "" && !seen["runtime"] {
		r.fail(root.Line, "runtime: is missing (yaml, nodejs, go, python, ...)")
	}
	if p.StackConfigDir == "" {
		p.StackConfigDir = p.Dir
	}
	// The config block's keys without a namespace are the project's own:
	// qualified once the name is known, whatever the key order.
	for i := range p.Config {
		if !strings.Contains(p.Config[i].Key, ":") {
			p.Config[i].Key = p.Name + ":" + p.Config[i].Key
		}
	}
	if len(r.errs) > 0 {
		return nil, errors.Join(r.errs...)
	}
	return p, nil
}

type reader struct {
	p    *Project
	errs []error
}

func (r *reader) fail(line int, format string, args ...any) {
	r.errs = append(r.errs, &Error{File: r.p.File, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// top reads one top-level key. Keys runner does not use (description,
// backend, the YAML program's resources:, ...) are left to their readers.
func (r *reader) top(k, v *yaml.Node) {
	switch k.Value {
	case "name":
		if v.Kind != yaml.ScalarNode || !nameRE.MatchString(v.Value) {
			r.fail(v.Line, "name: %q is not a valid project name (letters, digits, '-', '_' and '.', not starting with '.' or '-')", v.Value)
			return
		}
		r.p.Name = v.Value
	case "runtime":
		r.runtime(v)
	case "main":
		if v.Kind != yaml.ScalarNode || v.Value == "" {
			r.fail(v.Line, "main: must be a path inside the project folder")
			return
		}
		r.p.Main, r.p.MainLine = v.Value, v.Line
	case "stackConfigDir":
		if v.Kind != yaml.ScalarNode || v.Value == "" || filepath.IsAbs(v.Value) {
			r.fail(v.Line, "stackConfigDir: must be a folder relative to the project folder")
			return
		}
		r.p.StackConfigDir = filepath.Join(r.p.Dir, v.Value)
	case "config":
		r.config(v)
	}
}

func (r *reader) runtime(v *yaml.Node) {
	switch v.Kind {
	case yaml.ScalarNode:
		r.p.Runtime = v.Value
	case yaml.MappingNode:
		for _, kv := range pairs(v) {
			k, val := kv.k, kv.v
			switch k.Value {
			case "name":
				r.p.Runtime = val.Value
			case "options":
				var opts map[string]any
				if err := val.Decode(&opts); err != nil || val.Kind != yaml.MappingNode {
					r.fail(val.Line, "runtime.options must be a mapping")
					continue
				}
				r.p.Options = opts
			default:
				r.fail(k.Line, "runtime.%s is not a runtime setting (name, options)", k.Value)
			}
		}
	default:
		r.fail(v.Line, "runtime: must be a name (yaml, nodejs, go) or {name, options}")
		return
	}
	if r.p.Runtime == "" {
		r.fail(v.Line, "runtime: names no runtime (yaml, nodejs, go, python, ...)")
	}
}

// deref returns the node an alias (*name) stands for, as the Pulumi CLI
// reads Pulumi.yaml through aliases; any other node as it is.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlError is a file that does not parse as YAML, at the line the parser
// names.
func yamlError(file string, err error) *Error {
	msg := err.Error()
	line := 0
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	return &Error{File: file, Line: line, Msg: "not valid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}
