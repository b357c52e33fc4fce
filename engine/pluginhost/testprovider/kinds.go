package main

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/archive"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The provider's resource types.
const (
	typeThing = "testprov:index:Thing" // any inputs
	typeBlob  = "testprov:index:Blob"  // inputs asset and/or archive
	typeRef   = "testprov:index:Ref"   // input target: a resource reference or a string
)

// knownType returns an error unless typ is one of the provider's types.
func knownType(typ string) error {
	switch typ {
	case typeThing, typeBlob, typeRef:
		return nil
	}
	return status.Errorf(codes.InvalidArgument, "testprov: unknown resource type %q (testprov has %s, %s and %s)",
		typ, typeThing, typeBlob, typeRef)
}

// kindFailures checks the inputs particular to typ.
func kindFailures(typ string, news resource.PropertyMap) []plugin.CheckFailure {
	var failures []plugin.CheckFailure
	bad := func(k resource.PropertyKey, want string, v resource.PropertyValue) {
		failures = append(failures, plugin.CheckFailure{Property: k,
			Reason: fmt.Sprintf("testprov: %s must be %s, not %s", k, want, v.TypeString())})
	}
	switch typ {
	case typeBlob:
		if v, ok := news["asset"]; ok && !plain(v).IsAsset() && !plain(v).IsComputed() {
			bad("asset", "an asset", v)
		}
		if v, ok := news["archive"]; ok && !plain(v).IsArchive() && !plain(v).IsComputed() {
			bad("archive", "an archive", v)
		}
	case typeRef:
		v, ok := news["target"]
		p := plain(v)
		if !ok || !(p.IsResourceReference() || p.IsString() || p.IsComputed()) {
			bad("target", "a resource reference or a string", v)
		}
	}
	return failures
}

// kindOutputs returns the outputs typ computes from its inputs: Blob's
// assetHash, assetText and archiveNames; Ref's targetUrn and targetId.
func kindOutputs(typ string, inputs resource.PropertyMap) (resource.PropertyMap, error) {
	outs := resource.PropertyMap{}
	switch typ {
	case typeBlob:
		if err := assetOutputs(plain(inputs["asset"]), outs); err != nil {
			return nil, err
		}
		if err := archiveOutputs(plain(inputs["archive"]), outs); err != nil {
			return nil, err
		}
	case typeRef:
		refOutputs(plain(inputs["target"]), outs)
	}
	return outs, nil
}

// assetOutputs sets assetHash and, for a text asset, assetText.
func assetOutputs(v resource.PropertyValue, outs resource.PropertyMap) error {
	switch {
	case v.IsComputed():
		outs["assetHash"] = unknownString()
	case v.IsAsset():
		a := v.AssetValue()
		if err := a.EnsureHash(); err != nil {
			return status.Errorf(codes.InvalidArgument, "testprov: read the asset: %v", err)
		}
		outs["assetHash"] = resource.NewStringProperty(a.Hash)
		if a.IsText() {
			outs["assetText"] = resource.NewStringProperty(a.Text)
		}
	}
	return nil
}

// archiveOutputs sets archiveNames, the sorted names of the archive's files.
func archiveOutputs(v resource.PropertyValue, outs resource.PropertyMap) error {
	switch {
	case v.IsComputed():
		outs["archiveNames"] = resource.MakeComputed(resource.NewStringProperty(""))
	case v.IsArchive():
		names, err := archiveNames(v.ArchiveValue())
		if err != nil {
			return status.Errorf(codes.InvalidArgument, "testprov: read the archive: %v", err)
		}
		vals := make([]resource.PropertyValue, len(names))
		for i, n := range names {
			vals[i] = resource.NewStringProperty(n)
		}
		outs["archiveNames"] = resource.NewArrayProperty(vals)
	}
	return nil
}

// archiveNames lists the names of the files in a, sorted.
func archiveNames(a *archive.Archive) ([]string, error) {
	r, err := a.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	names := []string{}
	for {
		name, blob, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		_ = blob.Close()
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

// refOutputs sets targetUrn and targetId from a resource reference, or
// targetId from a plain string (the engine's form of a reference when the
// provider does not accept resources).
func refOutputs(v resource.PropertyValue, outs resource.PropertyMap) {
	switch {
	case v.IsComputed():
		outs["targetId"] = unknownString()
	case v.IsString():
		outs["targetId"] = v
	case v.IsResourceReference():
		ref := v.ResourceReferenceValue()
		outs["targetUrn"] = resource.NewStringProperty(string(ref.URN))
		switch {
		case ref.ID.IsComputed():
			outs["targetId"] = unknownString()
		case ref.ID.IsString() && ref.ID.StringValue() == "":
			outs["targetId"] = unknownString()
		case ref.ID.IsString():
			outs["targetId"] = ref.ID
		default:
			outs["targetId"] = resource.NewStringProperty("")
		}
	}
}

// unknownString is an unknown string output (preview).
func unknownString() resource.PropertyValue {
	return resource.MakeComputed(resource.NewStringProperty(""))
}
