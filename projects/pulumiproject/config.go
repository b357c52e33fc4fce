package pulumiproject

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// declKeys are the keys of a config declaration ({type, default, ...});
// a mapping with any other key is a structured value.
var declKeys = map[string]bool{"type": true, "description": true, "default": true, "value": true, "secret": true, "items": true}

var types = map[string]bool{"string": true, "integer": true, "boolean": true, "array": true, "object": true}

// config reads the config block: each key is a value (the default, as
// Pulumi's shorthand) or a declaration {type, description, default (or
// value), secret, items}.
func (r *reader) config(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		r.fail(v.Line, "config: must be a mapping of keys to values or declarations")
		return
	}
	for _, kv := range pairs(v) {
		k, val := kv.k, kv.v
		ck := ConfigKey{Key: k.Value, Line: k.Line}
		if isDecl(val) {
			r.declaration(&ck, val)
		} else {
			if err := val.Decode(&ck.Default); err != nil {
				r.fail(val.Line, "config %s: %v", k.Value, err)
				continue
			}
			ck.HasDefault = true
		}
		r.p.Config = append(r.p.Config, ck)
	}
}

func isDecl(v *yaml.Node) bool {
	if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
		return false
	}
	for _, kv := range pairs(v) {
		if !declKeys[kv.k.Value] {
			return false
		}
	}
	return true
}

func (r *reader) declaration(ck *ConfigKey, v *yaml.Node) {
	for _, kv := range pairs(v) {
		k, val := kv.k, kv.v
		switch k.Value {
		case "type":
			if !types[val.Value] {
				r.fail(val.Line, "config %s: type %q is not one of string, integer, boolean, array, object", ck.Key, val.Value)
			}
			ck.Type = val.Value
		case "description":
			ck.Description = val.Value
		case "secret":
			b, err := strconv.ParseBool(val.Value)
			if err != nil {
				r.fail(val.Line, "config %s: secret: must be true or false", ck.Key)
			}
			ck.Secret = b
		case "default", "value":
			if err := val.Decode(&ck.Default); err != nil {
				r.fail(val.Line, "config %s: %v", ck.Key, err)
			}
			ck.HasDefault = true
		}
	}
	if ck.HasDefault && ck.Type != "" {
		if err := CheckType(ck.Type, ck.Default); err != nil {
			r.fail(ck.Line, "config %s: the default %v", ck.Key, err)
		}
	}
}

// CheckType says whether v (a value as YAML decodes it, or a string from
// a stack config) is of the declared type ("" accepts anything).
func CheckType(typ string, v any) error {
	ok := true
	switch typ {
	case "string":
		switch v.(type) {
		case string, int, float64, bool:
		default:
			ok = false
		}
	case "integer":
		switch x := v.(type) {
		case int:
		case string:
			_, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
			ok = err == nil
		default:
			ok = false
		}
	case "boolean":
		switch x := v.(type) {
		case bool:
		case string:
			_, err := strconv.ParseBool(x)
			ok = err == nil
		default:
			ok = false
		}
	case "array":
		_, ok = v.([]any)
	case "object":
		_, ok = v.(map[string]any)
	}
	if !ok {
		return fmt.Errorf("is not of type %s", typ)
	}
	return nil
}

// Program is where a project's program runs, as Pulumi derives it from
// main: Pwd is the folder the program runs in and EntryPoint its main
// relative to Pwd ("." for the folder itself).
type Program struct {
	Pwd, EntryPoint string
}

// Program returns where the program runs. A main that leaves the project
// folder or does not exist is an *Error naming the file.
func (p *Project) Program() (Program, error) {
	if p.Main == "" {
		return Program{Pwd: p.Dir, EntryPoint: "."}, nil
	}
	if filepath.IsAbs(p.Main) {
		return Program{}, &Error{File: p.File, Line: p.MainLine, Msg: fmt.Sprintf("main: %s must be relative to the project folder", p.Main)}
	}
	main := filepath.Clean(filepath.Join(p.Dir, p.Main))
	if main != p.Dir && !strings.HasPrefix(main, p.Dir+string(filepath.Separator)) {
		return Program{}, &Error{File: p.File, Line: p.MainLine, Msg: fmt.Sprintf("main: %s is outside the project folder", p.Main)}
	}
	st, err := os.Stat(main)
	if err != nil {
		return Program{}, &Error{File: p.File, Line: p.MainLine, Msg: fmt.Sprintf("main: %s does not exist in %s", p.Main, p.Dir)}
	}
	if st.IsDir() {
		return Program{Pwd: main, EntryPoint: "."}, nil
	}
	return Program{Pwd: filepath.Dir(main), EntryPoint: filepath.Base(main)}, nil
}

// StackFile returns the path of the project's own config file of stack.
func (p *Project) StackFile(stack string) string {
	return filepath.Join(p.StackConfigDir, "Pulumi."+stack+".yaml")
}
