package wire

import (
	"fmt"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/runnerhq/runner/engine/resource"
	"google.golang.org/protobuf/types/known/structpb"
)

// Marshal converts a property map to a Struct (never nil: a nil map gives
// an empty Struct). Errors name the property path ("tags.Name: ...").
func Marshal(m resource.PropertyMap, o Options) (*structpb.Struct, error) {
	return marshalObject(m, o, "")
}

func marshalObject(m map[string]any, o Options, path string) (*structpb.Struct, error) {
	s := &structpb.Struct{Fields: make(map[string]*structpb.Value, len(m))}
	for k, v := range m {
		if !utf8.ValidString(k) {
			return nil, errAt(path, fmt.Sprintf("the key %q is not valid UTF-8", k))
		}
		pv, ok, err := marshalValue(v, o, pathKey(path, k))
		if err != nil {
			return nil, err
		}
		if ok {
			s.Fields[k] = pv
		}
	}
	return s, nil
}

func marshalValue(v any, o Options, path string) (*structpb.Value, bool, error) {
	switch x := v.(type) {
	case nil:
		return structpb.NewNullValue(), true, nil
	case bool:
		return structpb.NewBoolValue(x), true, nil
	case float64:
		return structpb.NewNumberValue(x), true, nil
	case string:
		if !utf8.ValidString(x) {
			return nil, false, errAt(path, "the string is not valid UTF-8, and byte strings are not supported")
		}
		return structpb.NewStringValue(x), true, nil
	case resource.Computed:
		if !o.KeepUnknowns {
			return nil, false, nil
		}
		return structpb.NewStringValue(UnknownString), true, nil
	case resource.Secret:
		return marshalSecret(x, o, path)
	case resource.PropertyMap:
		return marshalMap(x, o, path)
	case map[string]any:
		return marshalMap(x, o, path)
	case []any:
		return marshalList(x, o, path)
	case resource.Asset:
		return structpb.NewStructValue(marshalAsset(x, o)), true, nil
	case resource.Archive:
		s, err := marshalArchive(x, o, path)
		if err != nil {
			return nil, false, err
		}
		return structpb.NewStructValue(s), true, nil
	case resource.ResourceReference:
		return marshalReference(x, o, path)
	case resource.Output:
		return marshalOutput(x, o, path)
	}
	n, err := resource.Normalize(v)
	if err != nil {
		return nil, false, errAt(path, err.Error())
	}
	return marshalValue(n, o, path)
}

func marshalMap(m map[string]any, o Options, path string) (*structpb.Value, bool, error) {
	s, err := marshalObject(m, o, path)
	if err != nil {
		return nil, false, err
	}
	return structpb.NewStructValue(s), true, nil
}

func marshalList(l []any, o Options, path string) (*structpb.Value, bool, error) {
	out := make([]*structpb.Value, 0, len(l))
	for i, e := range l {
		pv, ok, err := marshalValue(e, o, path+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, false, err
		}
		if ok {
			out = append(out, pv)
		}
	}
	return structpb.NewListValue(&structpb.ListValue{Values: out}), true, nil
}

func marshalSecret(s resource.Secret, o Options, path string) (*structpb.Value, bool, error) {
	inner, ok, err := marshalValue(s.Element, o, path)
	if err != nil || !ok || !o.KeepSecrets {
		return inner, ok, err
	}
	return structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{
		SigKey:  structpb.NewStringValue(SecretSig),
		"value": inner,
	}}), true, nil
}

// sigStruct returns a Struct with the signature and the non-empty fields.
func sigStruct(sig string, fields ...string) *structpb.Struct {
	s := &structpb.Struct{Fields: map[string]*structpb.Value{SigKey: structpb.NewStringValue(sig)}}
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i+1] != "" {
			s.Fields[fields[i]] = structpb.NewStringValue(fields[i+1])
		}
	}
	return s
}

func marshalAsset(a resource.Asset, o Options) *structpb.Struct {
	if o.ElideAssetContents {
		s := sigStruct(AssetSig)
		s.Fields["hash"] = structpb.NewStringValue(a.Hash)
		return s
	}
	s := sigStruct(AssetSig, "hash", a.Hash, "path", a.Path, "uri", a.URI)
	if a.Path == "" && a.URI == "" && !a.IsElided() {
		s.Fields["text"] = structpb.NewStringValue(a.Text)
	}
	return s
}

func marshalArchive(a resource.Archive, o Options, path string) (*structpb.Struct, error) {
	if o.ElideAssetContents {
		s := sigStruct(ArchiveSig)
		s.Fields["hash"] = structpb.NewStringValue(a.Hash)
		return s, nil
	}
	s := sigStruct(ArchiveSig, "hash", a.Hash, "path", a.Path, "uri", a.URI)
	if a.Path != "" || a.URI != "" || a.IsElided() {
		return s, nil
	}
	names := make([]string, 0, len(a.Assets))
	for k := range a.Assets {
		names = append(names, k)
	}
	sort.Strings(names)
	members := &structpb.Struct{Fields: make(map[string]*structpb.Value, len(names))}
	for _, k := range names {
		var m *structpb.Struct
		switch x := a.Assets[k].(type) {
		case resource.Asset:
			m = marshalAsset(x, o)
		case resource.Archive:
			var err error
			if m, err = marshalArchive(x, o, pathKey(path, k)); err != nil {
				return nil, err
			}
		default:
			return nil, errAt(pathKey(path, k), fmt.Sprintf("an archive member must be an asset or an archive, not %T", x))
		}
		members.Fields[k] = structpb.NewStructValue(m)
	}
	s.Fields["assets"] = structpb.NewStructValue(members)
	return s, nil
}

func marshalReference(r resource.ResourceReference, o Options, path string) (*structpb.Value, bool, error) {
	if r.URN == "" {
		return nil, false, errAt(path, "a resource reference has no URN")
	}
	if !o.KeepResources {
		if r.ID == nil {
			return structpb.NewStringValue(string(r.URN)), true, nil
		}
		return marshalValue(r.ID, o, path)
	}
	s := sigStruct(ResourceReferenceSig, "urn", string(r.URN), "packageVersion", r.PackageVersion)
	switch id := r.ID.(type) {
	case nil:
	case string:
		s.Fields["id"] = structpb.NewStringValue(id)
	case resource.Computed:
		s.Fields["id"] = structpb.NewStringValue("")
	default:
		return nil, false, errAt(path, fmt.Sprintf("a resource reference's ID must be a string or unknown, not %T", id))
	}
	return structpb.NewStructValue(s), true, nil
}

// marshalOutput sends an output value as its object (the value when known,
// secret when secret, its dependencies), or downgraded without
// KeepOutputValues.
func marshalOutput(v resource.Output, o Options, path string) (*structpb.Value, bool, error) {
	if !o.KeepOutputValues {
		return marshalValue(resource.DowngradeOutputs(v), o, path)
	}
	s := sigStruct(OutputValueSig)
	if v.Known {
		inner, ok, err := marshalValue(v.Element, o, path)
		if err != nil {
			return nil, false, err
		}
		if ok {
			s.Fields["value"] = inner
		}
	}
	if v.Secret {
		s.Fields["secret"] = structpb.NewBoolValue(true)
	}
	if len(v.Dependencies) > 0 {
		deps := make([]*structpb.Value, len(v.Dependencies))
		for i, d := range v.Dependencies {
			deps[i] = structpb.NewStringValue(string(d))
		}
		s.Fields["dependencies"] = structpb.NewListValue(&structpb.ListValue{Values: deps})
	}
	return structpb.NewStructValue(s), true, nil
}
