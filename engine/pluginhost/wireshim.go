package pluginhost

// TEMPORARY: a minimal stand-in for package wire (engine/pluginhost/wire,
// written in parallel) so this package builds and is tested before it
// lands. It converts plain values, secrets and unknowns only; assets,
// archives and resource references fail clearly. Replaced by wire on merge.

import (
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
	"google.golang.org/protobuf/types/known/structpb"
)

const (
	sigKey    = "4dabf18193072939515e22adb298388d"
	secretSig = "1b47061264138c4ac30d75fd1eb44270"
)

type wireOptions struct {
	KeepUnknowns, RejectUnknowns, KeepSecrets, KeepResources, ElideAssetContents bool
}

func wireMarshal(m resource.PropertyMap, o wireOptions) (*structpb.Struct, error) {
	s := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	for k, v := range m {
		pv, ok, err := shimValue(v, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		if ok {
			s.Fields[k] = pv
		}
	}
	return s, nil
}

func shimValue(v any, o wireOptions) (*structpb.Value, bool, error) {
	switch x := v.(type) {
	case resource.Computed:
		return structpb.NewStringValue(resource.UnknownStringValue), o.KeepUnknowns, nil
	case resource.Secret:
		inner, ok, err := shimValue(x.Element, o)
		if err != nil || !ok || !o.KeepSecrets {
			return inner, ok, err
		}
		return structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{
			sigKey: structpb.NewStringValue(secretSig), "value": inner}}), true, nil
	case resource.PropertyMap:
		return shimValue(map[string]any(x), o)
	case map[string]any:
		s, err := wireMarshal(x, o)
		return structpb.NewStructValue(s), err == nil, err
	case []any:
		l := &structpb.ListValue{}
		for _, e := range x {
			pv, ok, err := shimValue(e, o)
			if err != nil {
				return nil, false, err
			}
			if ok {
				l.Values = append(l.Values, pv)
			}
		}
		return structpb.NewListValue(l), true, nil
	case nil, bool, float64, string:
		pv, err := structpb.NewValue(x)
		return pv, err == nil, err
	}
	return nil, false, fmt.Errorf("values of type %T are not supported until package wire lands", v)
}

func wireUnmarshal(s *structpb.Struct, o wireOptions) (resource.PropertyMap, error) {
	if s == nil {
		return nil, nil
	}
	m := resource.PropertyMap{}
	for k, v := range s.Fields {
		x, err := shimFrom(v, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		m[k] = x
	}
	return m, nil
}

func shimFrom(v *structpb.Value, o wireOptions) (any, error) {
	switch x := v.Kind.(type) {
	case *structpb.Value_StringValue:
		if x.StringValue == resource.UnknownStringValue {
			if o.RejectUnknowns {
				return nil, fmt.Errorf("the plugin returned an unknown value")
			}
			return resource.Computed{}, nil
		}
		return x.StringValue, nil
	case *structpb.Value_StructValue:
		if sig := x.StructValue.Fields[sigKey]; sig != nil {
			if sig.GetStringValue() != secretSig {
				return nil, fmt.Errorf("special values are not supported until package wire lands")
			}
			inner, err := shimFrom(x.StructValue.Fields["value"], o)
			return resource.Secret{Element: inner}, err
		}
		m, err := wireUnmarshal(x.StructValue, o)
		return map[string]any(m), err
	case *structpb.Value_ListValue:
		out := []any{}
		for _, e := range x.ListValue.Values {
			y, err := shimFrom(e, o)
			if err != nil {
				return nil, err
			}
			out = append(out, y)
		}
		return out, nil
	}
	return v.AsInterface(), nil
}

func wireRemark(outs, ins resource.PropertyMap) resource.PropertyMap {
	if outs == nil {
		return nil
	}
	out := resource.PropertyMap{}
	for k, v := range outs {
		if _, s := v.(resource.Secret); !s && resource.ContainsSecret(ins[k]) {
			v = resource.Secret{Element: v}
		}
		out[k] = v
	}
	return out
}

func wireRestoreAssets(read, _ resource.PropertyMap) resource.PropertyMap { return read }
