package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/runnerhq/runner/e2e/fakecloud/plugins"
)

// tsSDK reads the nested input shapes of a Pulumi Node.js SDK (an unpacked
// npm package: types/input.d.ts, types/enums, and each resource's
// <module>/<name>.d.ts with its <Name>Args interface).
type tsSDK struct {
	dir       string
	bodies    map[string]tsBody // interface name ("eks.ClusterVpcConfig") → body
	enums     map[string][]any  // enum name ("ec2.InstanceType") → values
	types     map[string]*plugins.InputSpec
	queue     []string
	leniences map[string]int
	// classes are the resource classes the args file being read imports
	// (Role in string | Role): a resource passed for an input is its ID.
	classes map[string]bool
}

// tsBody is an interface's members and the namespace it is declared in.
type tsBody struct{ ns, src string }

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	lineComment  = regexp.MustCompile(`(?m)^\s*//.*$`)
	declaration  = regexp.MustCompile(`^(?:export\s+)?(?:declare\s+)?(namespace|interface)\s+(\w+)\s*\{`)
	enumConst    = regexp.MustCompile(`(?s)export declare const (\w+): \{(.*?)\};`)
	enumValue    = regexp.MustCompile(`readonly \w+: ("(?:[^"\\]|\\.)*"|-?[0-9.]+);`)
	namedImport  = regexp.MustCompile(`import \{([\w\s,]+)\} from "\.{1,2}/[^"]*"`)
)

// readTS loads the SDK unpacked at dir.
func readTS(dir string) (*tsSDK, error) {
	s := &tsSDK{dir: dir, bodies: map[string]tsBody{}, enums: map[string][]any{},
		types: map[string]*plugins.InputSpec{}, leniences: map[string]int{}}
	src, err := readSource(filepath.Join(dir, "types", "input.d.ts"))
	if err != nil {
		return nil, err
	}
	if err := s.scan(src); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "types", "input.d.ts"), err)
	}
	return s, s.readEnums(filepath.Join(dir, "types", "enums"))
}

// readSource returns a declaration file without its comments.
func readSource(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return lineComment.ReplaceAllString(blockComment.ReplaceAllString(string(data), ""), ""), nil
}

// scan records the interfaces of src by their namespaced names.
func (s *tsSDK) scan(src string) error {
	var ns []string
	for i := 0; i < len(src); {
		for i < len(src) && strings.ContainsRune(" \t\r\n", rune(src[i])) {
			i++
		}
		rest := src[i:]
		switch m := declaration.FindStringSubmatch(rest); {
		case m != nil && m[1] == "namespace":
			ns = append(ns, m[2])
			i += len(m[0])
		case m != nil:
			end := closing(src, i+len(m[0]))
			if end < 0 {
				return fmt.Errorf("interface %s does not end", m[2])
			}
			s.bodies[strings.Join(append(ns[:len(ns):len(ns)], m[2]), ".")] = tsBody{strings.Join(ns, "."), src[i+len(m[0]) : end]}
			i = end + 1
		case strings.HasPrefix(rest, "}") && len(ns) > 0:
			ns = ns[:len(ns)-1]
			i++
		default: // an import or a type alias: the rest of the line
			next := strings.IndexByte(rest, '\n')
			if next < 0 {
				return nil
			}
			i += next + 1
		}
	}
	return nil
}

// closing returns the index of the } that closes the { before from.
func closing(src string, from int) int {
	depth := 1
	for i := from; i < len(src); i++ {
		switch src[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// readEnums records the enum constants under dir (types/enums), named by
// their folder ("ec2/index.d.ts" InstanceType → "ec2.InstanceType").
func (s *tsSDK) readEnums(dir string) error {
	return filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if os.IsNotExist(err) && path == dir {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".d.ts") {
			return err
		}
		src, err := readSource(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(path))
		prefix := strings.ReplaceAll(rel, string(filepath.Separator), ".") + "."
		if rel == "." {
			prefix = ""
		}
		for _, m := range enumConst.FindAllStringSubmatch(src, -1) {
			for _, v := range enumValue.FindAllStringSubmatch(m[2], -1) {
				s.enums[prefix+m[1]] = append(s.enums[prefix+m[1]], literal(v[1]))
			}
		}
		return nil
	})
}

// literal returns a TypeScript string or number literal's value.
func literal(lit string) any {
	if strings.HasPrefix(lit, `"`) {
		return strings.ReplaceAll(strings.Trim(lit, `"`), `\"`, `"`)
	}
	var f float64
	fmt.Sscan(lit, &f)
	return f
}

// want queues the named interface for writing.
func (s *tsSDK) want(name string) {
	if _, ok := s.types[name]; ok {
		return
	}
	s.types[name] = nil
	s.queue = append(s.queue, name)
}

// lenient counts one deliberate leniency of the generator.
func (s *tsSDK) lenient(what string) { s.leniences[what]++ }

// resource returns the inputs of the resource type token (pkg:module/name:Type),
// from <module>/<name>.d.ts's <Type>Args ("index" is the package's root).
func (s *tsSDK) resource(token string) (map[string]*plugins.InputSpec, error) {
	parts := strings.Split(token, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%q is not a resource type token", token)
	}
	mod, file, _ := strings.Cut(parts[1], "/")
	path := filepath.Join(s.dir, mod, file+".d.ts")
	if mod == "index" {
		path = filepath.Join(s.dir, file+".d.ts")
	}
	src, err := readSource(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", token, err)
	}
	head := regexp.MustCompile(`export interface ` + parts[2] + `Args \{`).FindStringIndex(src)
	if head == nil {
		return map[string]*plugins.InputSpec{}, nil // a resource without inputs
	}
	end := closing(src, head[1])
	s.classes = map[string]bool{}
	for _, m := range namedImport.FindAllStringSubmatch(src, -1) {
		for _, name := range strings.Split(m[1], ",") {
			s.classes[strings.TrimSpace(name)] = true
		}
	}
	t, err := s.parseType("{"+src[head[1]:end]+"}", "")
	s.classes = nil
	if err != nil {
		return nil, fmt.Errorf("%s: %w", token, err)
	}
	return t.Properties, nil
}

// resolve parses every queued interface (and those they refer to).
func (s *tsSDK) resolve() error {
	for len(s.queue) > 0 {
		name := s.queue[0]
		s.queue = s.queue[1:]
		body, ok := s.bodies[name]
		if !ok {
			return fmt.Errorf("types/input.d.ts has no interface %s", name)
		}
		t, err := s.parseType("{"+body.src+"}", body.ns)
		if err != nil {
			return fmt.Errorf("interface %s: %w", name, err)
		}
		s.types[name] = t
	}
	return nil
}

// leniencies lists what the generator read loosely, with counts.
func (s *tsSDK) leniencies() []string {
	var out []string
	for what, n := range s.leniences {
		out = append(out, fmt.Sprintf("%s (%d)", what, n))
	}
	sort.Strings(out)
	return out
}
