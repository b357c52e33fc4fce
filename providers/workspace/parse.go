package workspace

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/runnerhq/runner/providers"
)

// envFile is runner.yaml as written, each value with its line.
type envFile struct {
	envs []*envDecl
}

type envDecl struct {
	name, description string
	line              int
	projects          []*projDecl
	questions         []questionDecl
}

type projDecl struct {
	key, path, onSuccess string
	category             providers.Category
	dependsOn            []ref
	line, pathLine       int
}

// ref is a name written at a line.
type ref struct {
	name string
	line int
}

type questionDecl struct {
	key, description, def string
	hasDefault, secret    bool
	choices               []string
	line                  int
}

// yamlLine finds the line number in a YAML parser error.
var yamlLine = regexp.MustCompile(`line (\d+)`)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// parser reads the file's nodes, collecting every problem with its line.
type parser struct {
	file    string
	errs    []error
	folders map[string]folderUse // project name -> its first folder
}

func (p *parser) fail(line int, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// mapping returns the key/value pairs of n, refusing a node that is not a
// mapping, keys written twice and (when allowed is not nil) unknown keys.
func (p *parser) mapping(n *yaml.Node, what string, allowed ...string) [][2]*yaml.Node {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		p.fail(n.Line, "%s uses a YAML anchor or alias; write it out", what)
		return nil
	}
	if n.Kind != yaml.MappingNode {
		p.fail(n.Line, "%s must be a mapping", what)
		return nil
	}
	seen := map[string]int{}
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if first, dup := seen[k.Value]; dup {
			p.fail(k.Line, "%s: the key %s is written twice (lines %d and %d); remove one", what, k.Value, first, k.Line)
			continue
		}
		seen[k.Value] = k.Line
		if allowed != nil && !contains(allowed, k.Value) {
			p.fail(k.Line, "%s: unknown key %q; the keys are %v", what, k.Value, allowed)
			continue
		}
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (p *parser) scalar(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.fail(n.Line, "%s must be a single value", what)
		return "", false
	}
	return n.Value, true
}

func (p *parser) strings(n *yaml.Node, what string) []ref {
	if n.Kind != yaml.SequenceNode {
		p.fail(n.Line, "%s must be a list", what)
		return nil
	}
	var out []ref
	for _, c := range n.Content {
		if s, ok := p.scalar(c, what+" entries"); ok {
			out = append(out, ref{s, c.Line})
		}
	}
	return out
}

// parse reads the whole file.
func (p *parser) parse(data []byte) *envFile {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 0
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		p.fail(line, "not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		return nil
	}
	f := &envFile{}
	if len(doc.Content) == 0 {
		p.fail(1, "the file is empty; declare environments under providers:")
		return f
	}
	for _, kv := range p.mapping(doc.Content[0], "the file", "providers") {
		for _, e := range p.mapping(kv[1], "providers") {
			if !nameRE.MatchString(e[0].Value) {
				p.fail(e[0].Line, "%q is not a valid environment name (letters, digits, '-', '_', '.')", e[0].Value)
				continue
			}
			f.envs = append(f.envs, p.env(e[0], e[1]))
		}
	}
	return f
}

func (p *parser) env(k, v *yaml.Node) *envDecl {
	e := &envDecl{name: k.Value, line: k.Line}
	what := "environment " + e.name
	for _, kv := range p.mapping(v, what, "description", "projects", "questions") {
		switch kv[0].Value {
		case "description":
			e.description, _ = p.scalar(kv[1], what+" description")
		case "projects":
			for _, pr := range p.mapping(kv[1], what+" projects") {
				if d := p.project(pr[0], pr[1]); d != nil {
					e.projects = append(e.projects, d)
				}
			}
		case "questions":
			if kv[1].Kind != yaml.SequenceNode {
				p.fail(kv[1].Line, "%s questions must be a list", what)
				continue
			}
			for _, q := range kv[1].Content {
				e.questions = append(e.questions, p.question(q, what))
			}
		}
	}
	if len(e.projects) == 0 {
		p.fail(e.line, "%s declares no projects; list them under projects:", what)
	}
	return e
}

func (p *parser) project(k, v *yaml.Node) *projDecl {
	d := &projDecl{key: k.Value, line: k.Line, category: providers.Infrastructure}
	what := "project " + d.key
	for _, kv := range p.mapping(v, what, "path", "dependsOn", "category", "on_success") {
		val := kv[1]
		switch kv[0].Value {
		case "path":
			d.path, _ = p.scalar(val, what+" path")
			d.pathLine = val.Line
		case "dependsOn":
			d.dependsOn = p.strings(val, what+" dependsOn")
		case "category":
			s, _ := p.scalar(val, what+" category")
			if !contains([]string{"infrastructure", "kubernetes", "application"}, s) {
				p.fail(val.Line, "%s: category %q is not infrastructure, kubernetes or application", what, s)
				continue
			}
			d.category = providers.Category(s)
		case "on_success":
			d.onSuccess, _ = p.scalar(val, what+" on_success")
		}
	}
	if d.path == "" {
		p.fail(d.line, "%s has no path: (its folder, relative to runner.yaml)", what)
		return nil
	}
	return d
}

func (p *parser) question(n *yaml.Node, env string) questionDecl {
	q := questionDecl{line: n.Line}
	what := env + " question"
	for _, kv := range p.mapping(n, what, "key", "description", "default", "secret", "choices") {
		val := kv[1]
		switch kv[0].Value {
		case "key":
			q.key, _ = p.scalar(val, what+" key")
		case "description":
			q.description, _ = p.scalar(val, what+" description")
		case "default":
			q.def, q.hasDefault = p.scalar(val, what+" default")
		case "secret":
			s, _ := p.scalar(val, what+" secret")
			b, err := strconv.ParseBool(s)
			if err != nil {
				p.fail(val.Line, "%s secret: must be true or false", what)
			}
			q.secret = b
		case "choices":
			for _, c := range p.strings(val, what+" choices") {
				q.choices = append(q.choices, c.name)
			}
		}
	}
	if !validKey(q.key) {
		p.fail(q.line, "%s key %q must be namespace:name (app:replicas)", what, q.key)
	}
	if q.hasDefault && len(q.choices) > 0 && !contains(q.choices, q.def) {
		p.fail(q.line, "%s %s: the default %q is not one of its choices %v", what, q.key, q.def, q.choices)
	}
	return q
}

var keyRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+:[A-Za-z0-9_.:-]+$`)

func validKey(k string) bool { return keyRE.MatchString(k) }
