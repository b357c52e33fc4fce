package resource

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// A parameterized package's provider records, as Pulumi's engine records
// it, the package's version as its "version" input, and under __internal
// the base plugin's name ("name") and version ("version") and the
// parameterization's value, base64 ("parameterization"). The package's
// name is its provider type's (pulumi:providers:<name>). A later run, or
// the Pulumi CLI, re-parameterizes the base plugin from that.

// internalKey holds the engine's own provider inputs.
const internalKey = "__internal"

// providerTypePrefix starts the type of a provider resource.
const providerTypePrefix = "pulumi:providers:"

// SetParameterization records pz in a provider's inputs as Pulumi does.
func SetParameterization(inputs PropertyMap, pz *Parameterization) {
	internal, _ := inputs[internalKey].(map[string]any)
	if internal == nil {
		internal = map[string]any{}
	} else {
		internal = PropertyMap(internal).Copy(0)
	}
	internal["name"] = pz.Base
	internal["version"] = pz.BaseVersion
	internal["parameterization"] = base64.StdEncoding.EncodeToString(pz.Value)
	inputs[internalKey] = internal
	inputs["version"] = pz.Version
}

// ParameterizationOf returns the parameterization a provider of type typ
// records in its inputs (nil: it serves a plugin's own package).
func ParameterizationOf(typ string, inputs PropertyMap) (*Parameterization, error) {
	internal, _ := inputs[internalKey].(map[string]any)
	raw, ok := internal["parameterization"]
	if !ok {
		return nil, nil
	}
	enc, _ := raw.(string)
	value, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || enc == "" {
		return nil, errors.New("its __internal.parameterization is not a base64 value")
	}
	base, _ := internal["name"].(string)
	baseVersion, _ := internal["version"].(string)
	version, _ := inputs["version"].(string)
	if base == "" || version == "" {
		return nil, fmt.Errorf("its parameterization names no base plugin (__internal.name) or no package version (version)")
	}
	return &Parameterization{Base: base, BaseVersion: baseVersion, Value: value, Version: version,
		Name: strings.TrimPrefix(typ, providerTypePrefix)}, nil
}
