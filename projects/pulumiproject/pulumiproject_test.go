package pulumiproject

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, body string
		check      func(t *testing.T, p *Project)
	}{
		{"runtime as a string", "name: net\nruntime: yaml\n", func(t *testing.T, p *Project) {
			if p.Name != "net" || p.Runtime != "yaml" || p.StackConfigDir != p.Dir {
				t.Errorf("got %+v", p)
			}
		}},
		{"runtime with options", "name: app\nruntime:\n  name: go\n  options:\n    binary: bin/app\n", func(t *testing.T, p *Project) {
			if p.Runtime != "go" || p.Options["binary"] != "bin/app" {
				t.Errorf("got %+v", p)
			}
		}},
		{"config block", "name: app\nruntime: nodejs\nstackConfigDir: stacks\nconfig:\n  replicas: 2\n  aws:region: us-east-1\n  token:\n    type: string\n    secret: true\n  size:\n    type: integer\n    default: 3\n    description: nodes\n", func(t *testing.T, p *Project) {
			want := []ConfigKey{
				{Key: "app:replicas", Default: 2, HasDefault: true, Line: 5},
				{Key: "aws:region", Default: "us-east-1", HasDefault: true, Line: 6},
				{Key: "app:token", Type: "string", Secret: true, Line: 7},
				{Key: "app:size", Type: "integer", Default: 3, HasDefault: true, Description: "nodes", Line: 10},
			}
			if !reflect.DeepEqual(p.Config, want) {
				t.Errorf("config = %+v\nwant %+v", p.Config, want)
			}
			if !p.Config[2].Required() || p.Config[3].Required() {
				t.Error("only a key without a default is required")
			}
			if p.StackConfigDir != filepath.Join(p.Dir, "stacks") {
				t.Errorf("stackConfigDir = %s", p.StackConfigDir)
			}
		}},
		{"a YAML program's own keys are left alone", "name: x\nruntime: yaml\nresources:\n  a: {type: t:i:T}\noutputs: {o: 1}\n", nil},
		{"aliases read through", "x-rt: &rt\n  name: go\n  options: {binary: b}\nname: app\nruntime: *rt\nmain: &m src\nconfig:\n  k: *m\n", func(t *testing.T, p *Project) {
			if p.Runtime != "go" || p.Options["binary"] != "b" || p.Main != "src" || p.MainLine != 6 || len(p.Config) != 1 || p.Config[0].Default != "src" {
				t.Errorf("got %+v", p)
			}
		}},
		{"merge keys at the top", "x-base: &base\n  runtime: nodejs\n  main: src\nname: app\n<<: *base\nmain: lib\n", func(t *testing.T, p *Project) {
			if p.Runtime != "nodejs" || p.Main != "lib" {
				t.Errorf("a merged runtime is read and a written main wins over the merged one: got %+v", p)
			}
		}},
		{"merge keys in config, first mapping wins", "x-a: &a {k: 1, j: a}\nx-b: &b {k: 2, l: b}\nname: app\nruntime: go\nconfig:\n  <<: [*a, *b]\n  j: own\n", func(t *testing.T, p *Project) {
			got := map[string]any{}
			for _, c := range p.Config {
				got[c.Key] = c.Default
			}
			if want := map[string]any{"app:k": 1, "app:j": "own", "app:l": "b"}; !reflect.DeepEqual(got, want) {
				t.Errorf("config = %v, want %v", got, want)
			}
		}},
		{"merge keys in a declaration", "x-s: &s {type: string, secret: true}\nname: app\nruntime: go\nconfig:\n  token:\n    <<: *s\n    description: the token\n", func(t *testing.T, p *Project) {
			if len(p.Config) != 1 || !p.Config[0].Secret || p.Config[0].Type != "string" || p.Config[0].Description != "the token" {
				t.Errorf("config = %+v", p.Config)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("/p/Pulumi.yaml", []byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, p)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"no name", "runtime: yaml\n", "Pulumi.yaml:1: name: is missing"},
		{"no runtime", "name: x\n", "runtime: is missing"},
		{"bad name", "name: 'a b'\nruntime: yaml\n", "Pulumi.yaml:1: name: \"a b\" is not a valid project name"},
		{"name of the parent folder", "name: '..'\nruntime: yaml\n", "Pulumi.yaml:1: name: \"..\" is not a valid project name"},
		{"name starting with '-'", "name: -a\nruntime: yaml\n", "Pulumi.yaml:1: name: \"-a\" is not a valid project name"},
		{"bad type", "name: x\nruntime: yaml\nconfig:\n  k:\n    type: float\n", "Pulumi.yaml:5: config k: type \"float\""},
		{"default of the wrong type", "name: x\nruntime: yaml\nconfig:\n  k:\n    type: integer\n    default: abc\n", "Pulumi.yaml:4: config k: the default is not of type integer"},
		{"runtime setting", "name: x\nruntime:\n  name: go\n  opts: {}\n", "Pulumi.yaml:4: runtime.opts is not a runtime setting"},
		{"twice", "name: x\nname: y\nruntime: go\n", "Pulumi.yaml:2: the key name is written twice"},
		{"not YAML", "name: x\nruntime: go\nconfig:\n  a: [1\n", "Pulumi.yaml:3: not valid YAML: did not find expected ',' or ']'"},
		{"a tab", "name: x\n\truntime: go\n", "Pulumi.yaml:2: not valid YAML: found a tab character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("/p/Pulumi.yaml", []byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestProgram(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "index.ts"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		main    string
		want    Program
		wantErr string
	}{
		{"", Program{Pwd: dir, EntryPoint: "."}, ""},
		{"src", Program{Pwd: filepath.Join(dir, "src"), EntryPoint: "."}, ""},
		{"src/index.ts", Program{Pwd: filepath.Join(dir, "src"), EntryPoint: "index.ts"}, ""},
		{"../elsewhere", Program{}, "outside the project folder"},
		{"missing.ts", Program{}, "does not exist"},
	}
	for _, tt := range tests {
		p := &Project{File: filepath.Join(dir, FileName), Dir: dir, Main: tt.main}
		got, err := p.Program()
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("main %q: error %v, want %q", tt.main, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("main %q: %+v, %v; want %+v", tt.main, got, err, tt.want)
		}
	}
}

func TestCheckType(t *testing.T) {
	tests := []struct {
		typ string
		v   any
		ok  bool
	}{
		{"string", "x", true}, {"integer", "12", true}, {"integer", "1.5", false}, {"integer", 3, true},
		{"boolean", "true", true}, {"boolean", "yes", false}, {"array", []any{1}, true}, {"array", "x", false},
		{"object", map[string]any{}, true}, {"", 1.5, true},
	}
	for _, tt := range tests {
		if err := CheckType(tt.typ, tt.v); (err == nil) != tt.ok {
			t.Errorf("CheckType(%s, %#v) = %v", tt.typ, tt.v, err)
		}
	}
}

func TestCheckYAMLTemplate(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // "" for none
	}{
		{"no alias", map[string]string{"Pulumi.yaml": "name: x\nruntime: yaml\nvariables:\n  a: &a 1\n"}, nil},
		{"each alias at its line", map[string]string{"Pulumi.yaml": "name: x\nruntime: yaml\nvariables:\n  a: &a {v: 1}\n  b: *a\nresources:\n  r:\n    properties: *a\n"},
			[]string{"Pulumi.yaml:5: the alias *a: Pulumi YAML does not support aliases", "Pulumi.yaml:8: the alias *a"}},
		{"Main.yaml is the program", map[string]string{"Pulumi.yaml": "name: x\nruntime: yaml\nx: &a 1\ny: *a\n", "Main.yaml": "outputs:\n  o: &o 1\n  p: *o\n"},
			[]string{"Main.yaml:3: the alias *o"}},
		{"Main.json comes first", map[string]string{"Main.json": "{}", "Main.yaml": "a: &a 1\nb: *a\n"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := CheckYAMLTemplate(Program{Pwd: dir, EntryPoint: "."})
			if tt.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("not refused")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
