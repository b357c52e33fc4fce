package resource

// Output is an output value (Pulumi's output value): a value that may not
// be known yet, may be secret, with the resources it depends on. As in
// Pulumi's engine, only a remote component's inputs and a method's
// arguments and answers hold them; everywhere else they are downgraded
// (DowngradeOutputs) to their value, a Secret or Computed.
type Output struct {
	// Element is the value when Known.
	Element       any
	Known, Secret bool
	Dependencies  []URN
}

// String shows the output value without its element, which may be secret.
func (o Output) String() string {
	switch {
	case !o.Known:
		return "output([unknown])"
	case o.Secret:
		return "output([secret])"
	}
	return "output(known)"
}

// GoString shows the output value as String does, for %#v.
func (o Output) GoString() string { return o.String() }

// MarshalJSON shows the output value as String does: its element may be
// secret, and only the wire and the state encode property values.
func (o Output) MarshalJSON() ([]byte, error) { return []byte(`"` + o.String() + `"`), nil }

// Equal reports whether two output values are the same: known, secret,
// value and dependencies alike.
func (o Output) Equal(p Output) bool {
	if o.Known != p.Known || o.Secret != p.Secret || len(o.Dependencies) != len(p.Dependencies) {
		return false
	}
	for i, d := range o.Dependencies {
		if p.Dependencies[i] != d {
			return false
		}
	}
	return !o.Known || DeepEqual(o.Element, p.Element)
}

// ContainsOutputs reports whether v holds an Output anywhere.
func ContainsOutputs(v any) bool {
	return !Walk(v, func(x any, _ bool) bool {
		_, ok := x.(Output)
		return !ok
	})
}

// DowngradeOutputs returns v with every Output replaced, as Pulumi's
// engine downgrades them for those that take none: a known one by its
// value, an unknown one by Computed, each wrapped in a Secret when secret.
// Their dependencies are lost (OutputDependencies reads them first). A
// value without outputs is returned as it is.
func DowngradeOutputs(v any) any {
	if !ContainsOutputs(v) {
		return v
	}
	return Map(v, func(x any) (any, bool) {
		o, ok := x.(Output)
		if !ok {
			return nil, false
		}
		var out any = Computed{}
		if o.Known {
			out = DowngradeOutputs(o.Element)
		}
		if o.Secret {
			if s, already := out.(Secret); already {
				return s, true
			}
			out = Secret{Element: out}
		}
		return out, true
	})
}

// DowngradeOutputsMap is DowngradeOutputs of a property map.
func DowngradeOutputsMap(m PropertyMap) PropertyMap {
	if m == nil || !ContainsOutputs(map[string]any(m)) {
		return m
	}
	return PropertyMap(DowngradeOutputs(map[string]any(m)).(map[string]any))
}

// UpgradeToOutputs returns v with every Secret and Computed replaced by an
// Output (secret, or unknown), as Pulumi's engine reads a remote
// component's inputs and a method's arguments.
func UpgradeToOutputs(v any) any {
	return Map(v, func(x any) (any, bool) {
		switch y := x.(type) {
		case Secret:
			return Output{Element: UpgradeToOutputs(y.Element), Known: true, Secret: true}, true
		case Computed:
			return Output{}, true
		case Output:
			if y.Known {
				y.Element = UpgradeToOutputs(y.Element)
			}
			return y, true
		}
		return nil, false
	})
}

// OutputDependencies returns deps extended, without duplicates, by the
// dependencies of every Output in v.
func OutputDependencies(deps []URN, v any) []URN {
	seen := make(map[URN]bool, len(deps))
	for _, d := range deps {
		seen[d] = true
	}
	Walk(v, func(x any, _ bool) bool {
		if o, ok := x.(Output); ok {
			for _, d := range o.Dependencies {
				if !seen[d] {
					seen[d] = true
					deps = append(deps, d)
				}
			}
		}
		return true
	})
	return deps
}
