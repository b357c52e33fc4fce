package engine

import (
	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
)

// What programs use lives in engine/program; these names keep it where
// projects find it.
type (
	// Program declares a project's resources and stack outputs
	// (program.Program).
	Program = program.Program
	// Context is what a Program declares its resources through
	// (program.Context).
	Context = program.Context
	// Resource is a declared resource (program.Resource).
	Resource = program.Resource
	// Output is a promise of a value that becomes known while the engine
	// runs (program.Output).
	Output = program.Output
	// Inputs are a resource's declared input properties (program.Inputs).
	Inputs = program.Inputs
	// StackReference reads the stack outputs of another project
	// (program.StackReference).
	StackReference = program.StackReference
	// ResourceOption adjusts how a resource is managed
	// (program.ResourceOption).
	ResourceOption = program.ResourceOption
	// CustomTimeouts bound a resource's create, update and delete
	// (program.CustomTimeouts).
	CustomTimeouts = program.CustomTimeouts
)

// All combines outputs into one of their values (program.All).
func All(outs ...Output) Output { return program.All(outs...) }

// Val returns an Output of v (program.Val).
func Val(v any) Output { return program.Val(v) }

// Secret returns an Output of v marked secret (program.Secret).
func Secret(v any) Output { return program.Secret(v) }

// DependsOn makes the resource wait for rs (program.DependsOn).
func DependsOn(rs ...*Resource) ResourceOption { return program.DependsOn(rs...) }

// Protect refuses every delete or replacement of the resource while set
// (program.Protect).
func Protect(on bool) ResourceOption { return program.Protect(on) }

// IgnoreChanges keeps the recorded values of the input properties at the
// given paths (program.IgnoreChanges).
func IgnoreChanges(keys ...string) ResourceOption { return program.IgnoreChanges(keys...) }

// DeleteBeforeReplace deletes the old resource before creating its
// replacement (program.DeleteBeforeReplace).
func DeleteBeforeReplace(on bool) ResourceOption { return program.DeleteBeforeReplace(on) }

// RetainOnDelete leaves the real resource in place when the engine deletes
// it (program.RetainOnDelete).
func RetainOnDelete(on bool) ResourceOption { return program.RetainOnDelete(on) }

// Parent makes r the resource's parent (program.Parent).
func Parent(r *Resource) ResourceOption { return program.Parent(r) }

// AdditionalSecretOutputs marks the named output properties secret
// (program.AdditionalSecretOutputs).
func AdditionalSecretOutputs(keys ...string) ResourceOption {
	return program.AdditionalSecretOutputs(keys...)
}

// Provider makes the resource use the explicit provider p
// (program.Provider).
func Provider(p *Resource) ResourceOption { return program.Provider(p) }

// Import adopts the existing real resource with this ID (program.Import).
func Import(id string) ResourceOption { return program.Import(id) }

// Timeouts sets a resource's custom timeouts (program.Timeouts).
func Timeouts(t CustomTimeouts) ResourceOption { return program.Timeouts(t) }

// StringAsset returns an asset holding text (program.StringAsset).
func StringAsset(text string) resource.Asset { return program.StringAsset(text) }

// FileAsset returns an asset of the file at path, relative to the project
// directory (program.FileAsset).
func FileAsset(path string) resource.Asset { return program.FileAsset(path) }

// RemoteAsset returns an asset of the file at uri (program.RemoteAsset).
func RemoteAsset(uri string) resource.Asset { return program.RemoteAsset(uri) }

// FileArchive returns an archive of the folder or archive file at path
// (program.FileArchive).
func FileArchive(path string) resource.Archive { return program.FileArchive(path) }

// RemoteArchive returns an archive of the archive file at uri
// (program.RemoteArchive).
func RemoteArchive(uri string) resource.Archive { return program.RemoteArchive(uri) }

// AssetArchive returns an archive of assets and archives by name
// (program.AssetArchive).
func AssetArchive(assets map[string]any) resource.Archive { return program.AssetArchive(assets) }
