package resource

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// NewTextAsset returns an asset holding text, with its hash.
func NewTextAsset(text string) Asset {
	sum := sha256.Sum256([]byte(text))
	return Asset{Hash: hex.EncodeToString(sum[:]), Text: text}
}

// NewFileAsset returns an asset of the file at path (relative paths resolve
// against the project directory). Its hash is computed by EnsureHash, when
// the engine resolves the resource's inputs.
func NewFileAsset(path string) Asset { return Asset{Path: path} }

// NewURIAsset returns an asset of the file at uri. Only file:// URIs can be
// hashed; EnsureHash fails clearly on others.
func NewURIAsset(uri string) Asset { return Asset{URI: uri} }

// NewFileArchive returns an archive of the folder, or the .tar, .tgz,
// .tar.gz or .zip file, at path. Its hash is computed by EnsureHash.
func NewFileArchive(path string) Archive { return Archive{Path: path} }

// NewURIArchive returns an archive of the archive file at uri (file:// only
// can be hashed).
func NewURIArchive(uri string) Archive { return Archive{URI: uri} }

// NewAssetArchive returns an archive of assets: name -> Asset or Archive
// (or a pointer to one). The hash is computed at once when every member's
// contents are in memory (text assets and archives of them), otherwise by
// EnsureHash. Members of another type make EnsureHash and Normalize fail.
func NewAssetArchive(assets map[string]any) Archive {
	a := Archive{Assets: make(map[string]any, len(assets))}
	for k, v := range assets {
		switch x := v.(type) {
		case *Asset:
			v = *x
		case *Archive:
			v = *x
		}
		a.Assets[k] = v
	}
	if inMemory(a) {
		if h, err := a.EnsureHash(""); err == nil {
			return h
		}
	}
	return a
}

// inMemory reports whether every leaf of the archive is a text asset.
func inMemory(a Archive) bool {
	if a.Assets == nil {
		return false
	}
	for _, v := range a.Assets {
		switch x := v.(type) {
		case Asset:
			if x.Path != "" || x.URI != "" || x.Text == "" && x.Hash != "" {
				return false
			}
		case Archive:
			if !inMemory(x) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// emptyHash is the hash of no bytes: an asset with only this hash is the
// empty text, not an elided one.
const emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// IsElided reports whether only the asset's hash is known (its contents
// were left out on the wire). The empty text is not elided.
func (a Asset) IsElided() bool {
	return a.Text == "" && a.Path == "" && a.URI == "" && a.Hash != "" && a.Hash != emptyHash
}

// IsElided reports whether only the archive's hash is known.
func (a Archive) IsElided() bool {
	return a.Assets == nil && a.Path == "" && a.URI == "" && a.Hash != ""
}

// String shows the asset without its text: "asset(text, sha256:0123abcd…)".
func (a Asset) String() string {
	switch {
	case a.Path != "":
		return fmt.Sprintf("asset(file %q%s)", a.Path, shortHash(a.Hash))
	case a.URI != "":
		return fmt.Sprintf("asset(uri %q%s)", a.URI, shortHash(a.Hash))
	case a.IsElided():
		return fmt.Sprintf("asset(%s)", strings.TrimPrefix(shortHash(a.Hash), ", "))
	}
	return fmt.Sprintf("asset(text%s)", shortHash(a.Hash))
}

// String shows the archive: "archive(file "dist"…)", "archive(2 assets…)".
func (a Archive) String() string {
	switch {
	case a.Path != "":
		return fmt.Sprintf("archive(file %q%s)", a.Path, shortHash(a.Hash))
	case a.URI != "":
		return fmt.Sprintf("archive(uri %q%s)", a.URI, shortHash(a.Hash))
	case a.IsElided():
		return fmt.Sprintf("archive(%s)", strings.TrimPrefix(shortHash(a.Hash), ", "))
	}
	names := make([]string, 0, len(a.Assets))
	for k := range a.Assets {
		names = append(names, k)
	}
	sort.Strings(names)
	return fmt.Sprintf("archive(assets %s%s)", strings.Join(names, ", "), shortHash(a.Hash))
}

// String shows the reference: "resource(urn, id)".
func (r ResourceReference) String() string {
	switch id := r.ID.(type) {
	case nil:
		return fmt.Sprintf("resource(%s)", r.URN)
	case string:
		return fmt.Sprintf("resource(%s, id %s)", r.URN, id)
	}
	return fmt.Sprintf("resource(%s, id %v)", r.URN, r.ID)
}

// shortHash is ", sha256:<first 8 hex digits>…", or "" without a hash.
func shortHash(h string) string {
	if h == "" {
		return ""
	}
	if len(h) > 8 {
		h = h[:8] + "…"
	}
	return ", sha256:" + h
}

// Equal reports whether two assets are the same: by hash when both have
// one, otherwise field by field.
func (a Asset) Equal(b Asset) bool {
	if a.Hash != "" && b.Hash != "" {
		return a.Hash == b.Hash
	}
	return a == b
}

// Equal reports whether two archives are the same: by hash when both have
// one, otherwise by source and members.
func (a Archive) Equal(b Archive) bool {
	if a.Hash != "" && b.Hash != "" {
		return a.Hash == b.Hash
	}
	if a.Hash != b.Hash || a.Path != b.Path || a.URI != b.URI || (a.Assets == nil) != (b.Assets == nil) {
		return false
	}
	return DeepEqual(a.Assets, b.Assets)
}

// Equal reports whether two references are the same as Pulumi compares
// them: the same URN and the same ID, two unknown IDs counting as the
// same; the package version is not compared.
func (r ResourceReference) Equal(o ResourceReference) bool {
	if r.URN != o.URN {
		return false
	}
	_, rc := r.ID.(Computed)
	_, oc := o.ID.(Computed)
	return rc && oc || DeepEqual(r.ID, o.ID)
}
