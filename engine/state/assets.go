package state

import (
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
)

// Pulumi's signatures of assets, archives and resource references.
const (
	// AssetSig marks an asset.
	AssetSig = "c44067f5952c0a294b673a41bacd8c17"
	// ArchiveSig marks an archive.
	ArchiveSig = "0def7320c3a5731c473e5ecbe6d01bc7"
	// ResourceReferenceSig marks a resource reference.
	ResourceReferenceSig = "5cf8f73096256a8f31e491e813e4eb8e"
)

// EncodeAsset returns Pulumi's JSON form of an asset: the signature, its
// hash and one of text, path or uri (only the hash when elided).
func EncodeAsset(a resource.Asset) map[string]any {
	m, located := encodeLocated(AssetSig, a.Hash, a.Path, a.URI)
	if !located && !a.IsElided() {
		m["text"] = a.Text
	}
	return m
}

// EncodeArchive returns Pulumi's JSON form of an archive: the signature,
// its hash and one of assets, path or uri (only the hash when elided).
func EncodeArchive(a resource.Archive) map[string]any {
	m, located := encodeLocated(ArchiveSig, a.Hash, a.Path, a.URI)
	if located || a.IsElided() {
		return m
	}
	members := make(map[string]any, len(a.Assets))
	for k, v := range a.Assets {
		switch x := v.(type) {
		case resource.Asset:
			members[k] = EncodeAsset(x)
		case resource.Archive:
			members[k] = EncodeArchive(x)
		}
	}
	m["assets"] = members
	return m
}

// encodeLocated starts the JSON form of an asset or archive, which the two
// share: the signature sig, the hash when known, and the path or else the
// uri. located says one of those was set (then nothing else is written).
func encodeLocated(sig, hash, path, uri string) (m map[string]any, located bool) {
	m = map[string]any{SigKey: sig}
	if hash != "" {
		m["hash"] = hash
	}
	switch {
	case path != "":
		m["path"] = path
	case uri != "":
		m["uri"] = uri
	default:
		return m, false
	}
	return m, true
}

// EncodeResourceReference returns Pulumi's JSON form of a resource
// reference, as Pulumi's state records it: the signature, urn,
// packageVersion (even "") and id ("" while unknown; left out for a
// component).
func EncodeResourceReference(r resource.ResourceReference) map[string]any {
	m := map[string]any{SigKey: ResourceReferenceSig, "urn": string(r.URN), "packageVersion": r.PackageVersion}
	switch id := r.ID.(type) {
	case string:
		m["id"] = id
	case resource.Computed:
		m["id"] = ""
	}
	return m
}

// DecodeSpecial decodes an asset, archive or resource reference object
// (by its signature sig); ok is false for other signatures.
func DecodeSpecial(sig any, obj map[string]any) (v any, ok bool, err error) {
	switch sig {
	case AssetSig:
		a, err := DecodeAsset(obj)
		return a, true, err
	case ArchiveSig:
		a, err := DecodeArchive(obj)
		return a, true, err
	case ResourceReferenceSig:
		r, err := DecodeResourceReference(obj)
		return r, true, err
	}
	return nil, false, nil
}

// DecodeAsset reads Pulumi's JSON form of an asset.
func DecodeAsset(obj map[string]any) (resource.Asset, error) {
	var a resource.Asset
	err := stringFields(obj, "an asset", map[string]*string{"hash": &a.Hash, "text": &a.Text, "path": &a.Path, "uri": &a.URI})
	return a, err
}

// DecodeArchive reads Pulumi's JSON form of an archive.
func DecodeArchive(obj map[string]any) (resource.Archive, error) {
	var a resource.Archive
	if err := stringFields(obj, "an archive", map[string]*string{"hash": &a.Hash, "path": &a.Path, "uri": &a.URI}); err != nil {
		return a, err
	}
	raw, ok := obj["assets"]
	if !ok || raw == nil {
		return a, nil
	}
	members, ok := raw.(map[string]any)
	if !ok {
		return a, fmt.Errorf("an archive's assets must be an object, not %T", raw)
	}
	a.Assets = make(map[string]any, len(members))
	for k, v := range members {
		m, _ := v.(map[string]any)
		d, ok, err := DecodeSpecial(m[SigKey], m)
		if err == nil && (!ok || m[SigKey] == ResourceReferenceSig) {
			err = fmt.Errorf("it is not an asset or an archive")
		}
		if err != nil {
			return a, fmt.Errorf("archive member %q: %w", k, err)
		}
		a.Assets[k] = d
	}
	return a, nil
}

// DecodeResourceReference reads Pulumi's JSON form of a resource
// reference: an id of "" is unknown (resource.Computed), none is nil.
func DecodeResourceReference(obj map[string]any) (resource.ResourceReference, error) {
	var urn, id string
	var r resource.ResourceReference
	if err := stringFields(obj, "a resource reference", map[string]*string{"urn": &urn, "id": &id, "packageVersion": &r.PackageVersion}); err != nil {
		return r, err
	}
	if urn == "" {
		return r, fmt.Errorf("a resource reference has no urn")
	}
	r.URN = resource.URN(urn)
	if _, ok := obj["id"]; ok {
		r.ID = id
		if id == "" {
			r.ID = resource.Computed{}
		}
	}
	return r, nil
}

// stringFields sets each present field of obj into its target, failing
// when one is not a string.
func stringFields(obj map[string]any, what string, fields map[string]*string) error {
	for k, dst := range fields {
		v, ok := obj[k]
		if !ok || v == nil {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s's %s must be a string, not %T", what, k, v)
		}
		*dst = s
	}
	return nil
}
