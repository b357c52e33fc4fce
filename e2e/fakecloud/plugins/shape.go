package plugins

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// shapeCheck checks values against nested input shapes, collecting one
// failure per property path (vpcConfig.subnetIds[0]).
type shapeCheck struct {
	c    *Contract
	fail func(path, format string, args ...any)
}

// check checks the value v (secrets and output values unwrapped, unknown
// values passing) at path against in.
func (s *shapeCheck) check(path string, v resource.PropertyValue, in *InputSpec) {
	s.value(path, v, in, false)
}

// value checks v at path against in; secret says v is inside a secret, so
// that no failure shows it.
func (s *shapeCheck) value(path string, v resource.PropertyValue, in *InputSpec, secret bool) {
	secret = secret || isSecret(v)
	v, known := Contents(v)
	if !known || v.IsNull() {
		return
	}
	in = s.resolve(in)
	if len(in.OneOf) > 0 {
		s.oneOf(path, v, in.OneOf, secret)
		return
	}
	if !hasType(v, in.Type) {
		s.fail(path, "must be %s, not %s", article(in.Type), v.TypeString())
		return
	}
	switch {
	case in.Const != nil && !resource.NewPropertyValue(in.Const).DeepEquals(Plain(v)):
		s.fail(path, "must be %v, not %v", in.Const, shown(v, secret))
	case len(in.Enum) > 0 && !inEnum(Plain(v), in.Enum):
		s.fail(path, "must be one of %s, not %v", enumList(in.Enum), shown(v, secret))
	case v.IsArray() && in.Items != nil:
		for i, e := range v.ArrayValue() {
			s.value(fmt.Sprintf("%s[%d]", path, i), e, in.Items, secret)
		}
	case v.IsObject() && (in.Properties != nil || in.AdditionalProperties != nil):
		s.object(path, v.ObjectValue(), in, secret)
	}
}

// resolve returns the named shape in refers to, keeping in's flags.
func (s *shapeCheck) resolve(in *InputSpec) *InputSpec {
	if in.Ref == "" {
		return in
	}
	t, ok := s.c.Types[in.Ref]
	if !ok || t == nil {
		return &InputSpec{Type: "any"}
	}
	return t
}

// object checks an object's properties: unlisted ones (unless it is a
// map), each listed one, and the required ones.
func (s *shapeCheck) object(path string, m resource.PropertyMap, in *InputSpec, secret bool) {
	for _, k := range sortedKeys(m) {
		p := join(path, k)
		if prop, ok := in.Properties[k]; ok {
			s.value(p, m[resource.PropertyKey(k)], prop, secret)
		} else if in.AdditionalProperties != nil {
			s.value(p, m[resource.PropertyKey(k)], in.AdditionalProperties, secret)
		} else {
			s.fail(p, "unknown property %q: %s takes %s", k, path, nameList(in.Properties))
		}
	}
	for _, k := range sortedKeys(propertyKeys(in.Properties)) {
		if v, ok := m[resource.PropertyKey(k)]; in.Properties[k].Required && (!ok || v.IsNull()) {
			s.fail(join(path, k), "missing required property %q", k)
		}
	}
}

// oneOf passes v when one of alts takes it. Otherwise, when exactly one
// alternative has v's kind (an object for string | PolicyDocument), its
// failures are v's; else v has none of the kinds.
func (s *shapeCheck) oneOf(path string, v resource.PropertyValue, alts []*InputSpec, secret bool) {
	var kinds []string
	var sameKind []*InputSpec
	for _, alt := range alts {
		failed := false
		try := &shapeCheck{c: s.c, fail: func(string, string, ...any) { failed = true }}
		try.value(path, v, alt, secret)
		if !failed {
			return
		}
		if r := s.resolve(alt); len(r.OneOf) == 0 {
			kinds = append(kinds, article(r.Type))
			if hasType(v, r.Type) {
				sameKind = append(sameKind, alt)
			}
		}
	}
	if len(sameKind) == 1 {
		s.value(path, v, sameKind[0], secret)
		return
	}
	s.fail(path, "must be %s, not %s", strings.Join(kinds, " or "), v.TypeString())
}

// identifier is a property name written after a dot in a path.
var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// join returns the path of property k of the value at path, as Pulumi
// writes property paths: a.b, or a["k.with/dots"].
func join(path, k string) string {
	if !identifier.MatchString(k) {
		return fmt.Sprintf("%s[%q]", path, k)
	}
	if path == "" {
		return k
	}
	return path + "." + k
}

// inEnum reports whether v is one of values.
func inEnum(v resource.PropertyValue, values []any) bool {
	for _, e := range values {
		if resource.NewPropertyValue(e).DeepEquals(v) {
			return true
		}
	}
	return false
}

func enumList(values []any) string {
	var out []string
	for _, e := range values {
		out = append(out, fmt.Sprintf("%v", e))
	}
	return strings.Join(out, ", ")
}

// nameList lists the property names of an object shape, for messages.
func nameList(props map[string]*InputSpec) string {
	if len(props) == 0 {
		return "no properties"
	}
	names := sortedKeys(propertyKeys(props))
	if len(names) > 12 {
		return strings.Join(names[:12], ", ") + fmt.Sprintf(" and %d more", len(names)-12)
	}
	return strings.Join(names, ", ")
}

func propertyKeys(props map[string]*InputSpec) resource.PropertyMap {
	m := resource.PropertyMap{}
	for k := range props {
		m[resource.PropertyKey(k)] = resource.NewNullProperty()
	}
	return m
}

// isInteger reports whether v is a number without a fraction.
func isInteger(v resource.PropertyValue) bool {
	return v.IsNumber() && v.NumberValue() == math.Trunc(v.NumberValue()) && !math.IsInf(v.NumberValue(), 0)
}

// isSecret reports whether v is a secret, or a secret output value, around
// its contents.
func isSecret(v resource.PropertyValue) bool {
	for {
		switch {
		case v.IsSecret():
			return true
		case v.IsOutput() && v.OutputValue().Secret:
			return true
		case v.IsOutput() && v.OutputValue().Known:
			v = v.OutputValue().Element
		default:
			return false
		}
	}
}

// shown is v as a failure may show it: [secret] for a secret.
func shown(v resource.PropertyValue, secret bool) any {
	if secret || v.ContainsSecrets() {
		return "[secret]"
	}
	return Plain(v).V
}
