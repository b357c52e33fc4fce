package plugins

import (
	"fmt"
	"sort"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
)

// Check returns what is wrong with the inputs news of a resource of type
// typ against the contract, one failure per property path
// (vpcConfig.subnetIds[0]): an unknown type, an input or nested property
// the contract does not list, a missing required input or nested
// property, a value of the wrong type, a value other than the constant or
// outside the enum. Secrets and output values are checked by their
// contents; an unknown value passes.
func (c *Contract) Check(typ string, news resource.PropertyMap) []plugin.CheckFailure {
	spec, ok := c.Resources[typ]
	if !ok {
		return []plugin.CheckFailure{{Reason: fmt.Sprintf(
			"unknown resource type %q: the %s provider %s has no such resource", typ, c.Package, c.Version)}}
	}
	var failures []plugin.CheckFailure
	fail := func(k string, format string, args ...any) {
		failures = append(failures, plugin.CheckFailure{Property: resource.PropertyKey(k), Reason: fmt.Sprintf(format, args...)})
	}
	nested := &shapeCheck{c: c, fail: fail}
	for _, k := range sortedKeys(news) {
		in, ok := spec.Inputs[k]
		if !ok {
			fail(k, "%s has no input %q (%s %s)", typ, k, c.Package, c.Version)
			continue
		}
		nested.check(join("", k), news[resource.PropertyKey(k)], &in)
	}
	for _, k := range spec.Required() {
		if v, ok := news[resource.PropertyKey(k)]; !ok || v.IsNull() {
			fail(k, "missing required property %q", k)
		}
	}
	return failures
}

// hasType reports whether v (known, no secret around it) has the coarse
// contract type typ. A resource reference counts as a string (its ID).
func hasType(v resource.PropertyValue, typ string) bool {
	switch typ {
	case "string":
		return v.IsString() || v.IsResourceReference()
	case "number":
		return v.IsNumber()
	case "integer":
		return isInteger(v)
	case "boolean":
		return v.IsBool()
	case "array":
		return v.IsArray()
	case "object":
		return v.IsObject()
	case "asset":
		return v.IsAsset() || v.IsArchive()
	}
	return true // any
}

// article returns the coarse type with its article, for messages.
func article(typ string) string {
	switch typ {
	case "array", "object", "asset", "integer":
		return "an " + typ
	case "any":
		return "anything"
	}
	return "a " + typ
}

// Contents returns the value inside secrets and output values, and false
// when it is unknown.
func Contents(v resource.PropertyValue) (resource.PropertyValue, bool) {
	for {
		switch {
		case v.IsSecret():
			v = v.SecretValue().Element
		case v.IsOutput():
			o := v.OutputValue()
			if !o.Known {
				return v, false
			}
			v = o.Element
		case v.IsComputed():
			return v, false
		default:
			return v, true
		}
	}
}

// Plain returns v with every secret and known output value replaced by its
// contents, at any depth.
func Plain(v resource.PropertyValue) resource.PropertyValue {
	v, _ = Contents(v)
	switch {
	case v.IsObject():
		m := resource.PropertyMap{}
		for k, e := range v.ObjectValue() {
			m[k] = Plain(e)
		}
		return resource.NewObjectProperty(m)
	case v.IsArray():
		a := make([]resource.PropertyValue, len(v.ArrayValue()))
		for i, e := range v.ArrayValue() {
			a[i] = Plain(e)
		}
		return resource.NewArrayProperty(a)
	}
	return v
}

// sortedKeys returns the keys of m as strings, sorted.
func sortedKeys(m resource.PropertyMap) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, string(k))
	}
	sort.Strings(out)
	return out
}
