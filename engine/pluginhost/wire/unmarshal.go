package wire

import (
	"fmt"
	"strconv"

	"github.com/runnerhq/runner/engine/resource"
	"google.golang.org/protobuf/types/known/structpb"
)

// Unmarshal converts a Struct to a property map (nil gives an empty map).
// Output values are read as resource.Output with KeepOutputValues, else
// flattened to their value, a Secret or resource.Computed. Errors name the property path ("tags.Name: ...").
func Unmarshal(s *structpb.Struct, o Options) (resource.PropertyMap, error) {
	m, err := unmarshalObject(s.GetFields(), o, "")
	return resource.PropertyMap(m), err
}

func unmarshalObject(fields map[string]*structpb.Value, o Options, path string) (map[string]any, error) {
	out := make(map[string]any, len(fields))
	for k, v := range fields {
		pv, err := unmarshalValue(v, o, pathKey(path, k))
		if err != nil {
			return nil, err
		}
		out[k] = pv
	}
	return out, nil
}

func unmarshalValue(v *structpb.Value, o Options, path string) (any, error) {
	switch k := v.GetKind().(type) {
	case nil, *structpb.Value_NullValue:
		return nil, nil
	case *structpb.Value_BoolValue:
		return k.BoolValue, nil
	case *structpb.Value_NumberValue:
		return k.NumberValue, nil
	case *structpb.Value_StringValue:
		if IsUnknownSentinel(k.StringValue) {
			return unknown(o, path)
		}
		return k.StringValue, nil
	case *structpb.Value_ListValue:
		vals := k.ListValue.GetValues()
		out := make([]any, len(vals))
		for i, e := range vals {
			pv, err := unmarshalValue(e, o, path+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			out[i] = pv
		}
		return out, nil
	case *structpb.Value_StructValue:
		return unmarshalStruct(k.StructValue.GetFields(), o, path)
	}
	return nil, errAt(path, fmt.Sprintf("unexpected value kind %T", v.GetKind()))
}

// unknown is what an unknown value unmarshals to.
func unknown(o Options, path string) (any, error) {
	if o.RejectUnknowns {
		return nil, errAt(path, "the plugin returned an unknown value, where only known values are allowed")
	}
	return resource.Computed{}, nil
}

func unmarshalStruct(fields map[string]*structpb.Value, o Options, path string) (any, error) {
	sigv, ok := fields[SigKey]
	if !ok {
		return unmarshalObject(fields, o, path)
	}
	sig, ok := sigv.GetKind().(*structpb.Value_StringValue)
	if !ok {
		return nil, errAt(path, "the signature of a special value is not a string")
	}
	switch sig.StringValue {
	case SecretSig:
		inner, err := unmarshalValue(fields["value"], o, path)
		if err != nil || !o.KeepSecrets {
			return inner, err
		}
		return resource.Secret{Element: inner}, nil
	case AssetSig:
		return unmarshalAsset(fields, path)
	case ArchiveSig:
		return unmarshalArchive(fields, path)
	case ResourceReferenceSig:
		return unmarshalReference(fields, o, path)
	case OutputValueSig:
		return unmarshalOutput(fields, o, path)
	case ByteStringSig:
		return nil, errAt(path, "the plugin sent a byte string, which runner does not support (it never sets accepts_byte_string)")
	}
	return nil, errAt(path, fmt.Sprintf("unknown special value signature %q", sig.StringValue))
}

// stringFields reads the named string fields (absent: "").
func stringFields(fields map[string]*structpb.Value, path, what string, dst map[string]*string) error {
	for name, p := range dst {
		v, ok := fields[name]
		if !ok {
			continue
		}
		if _, null := v.GetKind().(*structpb.Value_NullValue); null {
			continue
		}
		s, ok := v.GetKind().(*structpb.Value_StringValue)
		if !ok {
			return errAt(path, fmt.Sprintf("%s's %s is not a string", what, name))
		}
		*p = s.StringValue
	}
	return nil
}

func unmarshalAsset(fields map[string]*structpb.Value, path string) (resource.Asset, error) {
	var a resource.Asset
	err := stringFields(fields, path, "an asset", map[string]*string{"hash": &a.Hash, "text": &a.Text, "path": &a.Path, "uri": &a.URI})
	return a, err
}

func unmarshalArchive(fields map[string]*structpb.Value, path string) (resource.Archive, error) {
	var a resource.Archive
	if err := stringFields(fields, path, "an archive", map[string]*string{"hash": &a.Hash, "path": &a.Path, "uri": &a.URI}); err != nil {
		return a, err
	}
	raw, ok := fields["assets"]
	if !ok {
		return a, nil
	}
	if _, null := raw.GetKind().(*structpb.Value_NullValue); null {
		return a, nil
	}
	members, ok := raw.GetKind().(*structpb.Value_StructValue)
	if !ok {
		return a, errAt(path, "an archive's assets are not an object")
	}
	a.Assets = make(map[string]any, len(members.StructValue.GetFields()))
	for k, v := range members.StructValue.GetFields() {
		mpath := pathKey(path, k)
		f := v.GetStructValue().GetFields()
		var err error
		switch f[SigKey].GetStringValue() {
		case AssetSig:
			a.Assets[k], err = unmarshalAsset(f, mpath)
		case ArchiveSig:
			a.Assets[k], err = unmarshalArchive(f, mpath)
		default:
			err = errAt(mpath, "an archive member is not an asset or an archive")
		}
		if err != nil {
			return a, err
		}
	}
	return a, nil
}

func unmarshalReference(fields map[string]*structpb.Value, o Options, path string) (any, error) {
	var urn, id, version string
	if err := stringFields(fields, path, "a resource reference", map[string]*string{"urn": &urn, "id": &id, "packageVersion": &version}); err != nil {
		return nil, err
	}
	if urn == "" {
		return nil, errAt(path, "a resource reference has no urn")
	}
	r := resource.ResourceReference{URN: resource.URN(urn), PackageVersion: version}
	if _, hasID := fields["id"]; hasID {
		r.ID = id
		if id == "" || IsUnknownSentinel(id) {
			r.ID = resource.Computed{}
		}
	}
	if o.KeepResources {
		if _, unknownID := r.ID.(resource.Computed); unknownID && o.RejectUnknowns {
			return unknown(o, path)
		}
		return r, nil
	}
	switch r.ID.(type) {
	case nil:
		return urn, nil
	case resource.Computed:
		return unknown(o, path)
	}
	return r.ID, nil
}

func unmarshalOutput(fields map[string]*structpb.Value, o Options, path string) (any, error) {
	v, known := fields["value"]
	var out any = resource.Computed{}
	if !known {
		if o.RejectUnknowns {
			return unknown(o, path)
		}
	} else {
		var err error
		if out, err = unmarshalValue(v, o, path); err != nil {
			return nil, err
		}
	}
	secret := fields["secret"].GetBoolValue()
	if o.KeepOutputValues {
		ov := resource.Output{Known: known, Secret: secret}
		if known {
			ov.Element = out
		}
		for i, d := range fields["dependencies"].GetListValue().GetValues() {
			s, ok := d.GetKind().(*structpb.Value_StringValue)
			if !ok {
				return nil, errAt(path, fmt.Sprintf("an output value's dependency %d is not a URN string", i))
			}
			ov.Dependencies = append(ov.Dependencies, resource.URN(s.StringValue))
		}
		return ov, nil
	}
	if _, already := out.(resource.Secret); !already && secret && o.KeepSecrets {
		return resource.Secret{Element: out}, nil
	}
	return out, nil
}
