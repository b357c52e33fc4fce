package main

import (
	"fmt"
	"strings"

	"github.com/runnerhq/runner/e2e/fakecloud/plugins"
)

// tsType parses one TypeScript type expression of a Pulumi Node.js SDK's
// declarations into an input shape. ns is the namespace the expression is
// written in ("" at the top): a bare name is looked up there first.
type tsType struct {
	src string
	pos int
	ns  string
	sdk *tsSDK
}

// parseType parses src (comments already removed) as a type in namespace ns.
func (s *tsSDK) parseType(src, ns string) (*plugins.InputSpec, error) {
	p := &tsType{src: src, ns: ns, sdk: s}
	t := p.union()
	p.space()
	if p.pos != len(p.src) {
		return nil, fmt.Errorf("cannot read the type %q past %q", src, p.src[p.pos:])
	}
	return t, nil
}

func (p *tsType) space() {
	for p.pos < len(p.src) && strings.ContainsRune(" \t\r\n", rune(p.src[p.pos])) {
		p.pos++
	}
}

// eat consumes tok when it comes next.
func (p *tsType) eat(tok string) bool {
	p.space()
	if strings.HasPrefix(p.src[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

// union reads A | B | ... and merges the alternatives (see merge).
func (p *tsType) union() *plugins.InputSpec {
	p.eat("|")
	alts := []*plugins.InputSpec{p.postfix()}
	for p.eat("|") {
		alts = append(alts, p.postfix())
	}
	return merge(alts)
}

// postfix reads a primary type followed by any number of [].
func (p *tsType) postfix() *plugins.InputSpec {
	t := p.primary()
	for p.eat("[]") {
		t = &plugins.InputSpec{Type: "array", Items: t}
	}
	return t
}

// primary reads a parenthesised type, an object literal, a string literal
// or a (generic) name.
func (p *tsType) primary() *plugins.InputSpec {
	switch {
	case p.eat("("):
		t := p.union()
		p.eat(")")
		return t
	case p.eat("{"):
		return p.object()
	case p.eat(`"`):
		end := strings.IndexByte(p.src[p.pos:], '"')
		lit := p.src[p.pos : p.pos+end]
		p.pos += end + 1
		return &plugins.InputSpec{Type: "string", Const: lit}
	}
	name := p.name()
	var args []*plugins.InputSpec
	if p.eat("<") {
		args = append(args, p.union())
		for p.eat(",") {
			args = append(args, p.union())
		}
		p.eat(">")
	}
	return p.named(name, args)
}

// name reads a dotted identifier.
func (p *tsType) name() string {
	p.space()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '.' || c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			p.pos++
			continue
		}
		break
	}
	if p.pos == start { // not a type we read: skip one character so parsing ends
		p.pos++
		return "?"
	}
	return p.src[start:p.pos]
}

// object reads an object literal after its {: a map ([key: string]: T) or
// named members.
func (p *tsType) object() *plugins.InputSpec {
	t := &plugins.InputSpec{Type: "object"}
	for !p.eat("}") {
		if p.pos >= len(p.src) {
			return t
		}
		if p.eat("[") {
			p.name()
			p.eat(":")
			p.name()
			p.eat("]")
			p.eat(":")
			t.AdditionalProperties = p.union()
		} else {
			name := p.name()
			optional := p.eat("?")
			p.eat(":")
			v := p.union()
			v.Required = !optional
			if t.Properties == nil {
				t.Properties = map[string]*plugins.InputSpec{}
			}
			t.Properties[name] = v
		}
		p.eat(";")
		p.eat(",")
	}
	return t
}

// named returns the shape of a named type with its type arguments.
func (p *tsType) named(name string, args []*plugins.InputSpec) *plugins.InputSpec {
	switch name {
	case "pulumi.Input", "pulumi.Output", "Promise":
		if len(args) == 1 {
			return args[0]
		}
	case "Record":
		if len(args) == 2 {
			return &plugins.InputSpec{Type: "object", AdditionalProperties: args[1]}
		}
	case "string", "number", "boolean":
		return &plugins.InputSpec{Type: name}
	case "any":
		return &plugins.InputSpec{Type: "any"}
	case "undefined", "null":
		return &plugins.InputSpec{Type: "undefined"}
	case "pulumi.asset.Asset", "pulumi.asset.Archive", "pulumi.asset.AssetOrArchive":
		return &plugins.InputSpec{Type: "asset"}
	}
	if p.sdk.classes[name] {
		return &plugins.InputSpec{Type: "string"} // a resource: its ID
	}
	if ref, ok := strings.CutPrefix(name, "inputs."); ok {
		p.sdk.want(ref)
		return &plugins.InputSpec{Ref: ref}
	}
	if enum, ok := strings.CutPrefix(name, "enums."); ok {
		if values := p.sdk.enums[enum]; len(values) > 0 {
			return &plugins.InputSpec{Type: "string", Enum: values}
		}
		return &plugins.InputSpec{Type: "string"}
	}
	p.sdk.lenient("a type the generator does not follow, " + name + ", is any")
	return &plugins.InputSpec{Type: "any"}
}

// merge returns the shape of a union: undefined and null dropped (an
// optional value); one alternative is itself; string with enums or string
// constants is any string; otherwise the alternatives, as OneOf.
func merge(alts []*plugins.InputSpec) *plugins.InputSpec {
	var kept []*plugins.InputSpec
	hasString := false
	for _, a := range alts {
		if a.Type == "undefined" {
			continue
		}
		if a.Type == "any" {
			return a // string | PolicyDocument, string | Role: anything
		}
		if a.Type == "string" && a.Const == nil && a.Enum == nil {
			hasString = true
		}
		kept = append(kept, a)
	}
	switch {
	case len(kept) == 0:
		return &plugins.InputSpec{Type: "any"}
	case len(kept) == 1:
		return kept[0]
	}
	if enum := constants(kept); enum != nil {
		return &plugins.InputSpec{Type: "string", Enum: enum}
	}
	var out []*plugins.InputSpec
	for _, a := range kept {
		if hasString && a.Type == "string" && a.Ref == "" {
			continue // string | Enum | "literal": any string
		}
		out = append(out, a)
	}
	if hasString {
		out = append(out, &plugins.InputSpec{Type: "string"})
	}
	if len(out) == 1 {
		return out[0]
	}
	return &plugins.InputSpec{OneOf: out}
}

// constants returns the values of alts when all are string constants.
func constants(alts []*plugins.InputSpec) []any {
	var out []any
	for _, a := range alts {
		if a.Type != "string" || a.Const == nil {
			return nil
		}
		out = append(out, a.Const)
	}
	return out
}
