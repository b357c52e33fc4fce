// Package wire converts property values to and from the form Pulumi's
// resource plugins exchange over gRPC: a google.protobuf.Struct whose
// special values (secrets, assets, archives, resource references, output
// values) are objects marked by a signature key, and whose unknown values
// are sentinel strings.
package wire

import "github.com/runnerhq/runner/engine/resource"

// SigKey is the key whose value marks an object as a special value.
const SigKey = "4dabf18193072939515e22adb298388d"

// The signatures of the special values.
const (
	SecretSig            = "1b47061264138c4ac30d75fd1eb44270"
	ResourceReferenceSig = "5cf8f73096256a8f31e491e813e4eb8e"
	OutputValueSig       = "d0e6a833031e9bbcd3f4e8bde6ca49a4"
	AssetSig             = "c44067f5952c0a294b673a41bacd8c17"
	ArchiveSig           = "0def7320c3a5731c473e5ecbe6d01bc7"
	ByteStringSig        = "803fd3297a5875dc03ca845dda5d2a98"
)

// The unknown sentinels, one per type. Marshal sends UnknownString for
// every unknown value; Unmarshal reads any of them as resource.Computed.
const (
	UnknownBool    = "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7"
	UnknownNumber  = "3eeb2bf0-c639-47a8-9e75-3b44932eb421"
	UnknownString  = resource.UnknownStringValue
	UnknownArray   = "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2"
	UnknownAsset   = "030794c1-ac77-496b-92df-f27374a8bd58"
	UnknownArchive = "e48ece36-62e2-4504-bad9-02848725956a"
	UnknownObject  = "dd056dcd-154b-4c76-9bd3-c8f88648b5ff"
)

// IsUnknownSentinel reports whether s is one of the unknown sentinels.
func IsUnknownSentinel(s string) bool {
	switch s {
	case UnknownBool, UnknownNumber, UnknownString, UnknownArray, UnknownAsset, UnknownArchive, UnknownObject:
		return true
	}
	return false
}

// Options say how values are converted; the engine picks them per call
// (PULUMIRPC.md section 3).
type Options struct {
	// KeepUnknowns (Marshal) sends unknown values as the unknown sentinel;
	// without it they are dropped: map keys left out, list elements
	// removed. Unmarshal always reads a sentinel as resource.Computed.
	KeepUnknowns bool
	// RejectUnknowns (Unmarshal) makes any unknown value an error naming
	// its property path.
	RejectUnknowns bool
	// KeepSecrets sends (and reads) secrets as secret objects; without it
	// they go as plain values (and are read as plain values).
	KeepSecrets bool
	// KeepResources sends (and reads) resource references as reference
	// objects; without it a reference goes as its ID when it has one (an
	// unknown ID as an unknown value), else as its URN.
	KeepResources bool
	// KeepOutputValues sends (and reads) output values (resource.Output)
	// as output value objects; without it Marshal downgrades them (their
	// value, resource.Computed when unknown, a secret when secret) and
	// Unmarshal flattens them the same way.
	KeepOutputValues bool
	// ElideAssetContents (Marshal) sends assets and archives as their
	// signature and hash only.
	ElideAssetContents bool
}

// pathKey appends a map key to a property path.
func pathKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// pathErr prefixes err with the property path, when there is one.
type pathError struct {
	path string
	msg  string
}

func (e *pathError) Error() string {
	if e.path == "" {
		return e.msg
	}
	return e.path + ": " + e.msg
}

func errAt(path, msg string) error { return &pathError{path: path, msg: msg} }
