package program

import (
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
)

// StringAsset returns an asset holding text (resource.NewTextAsset).
func StringAsset(text string) resource.Asset { return resource.NewTextAsset(text) }

// FileAsset returns an asset of the file at path, relative to the project
// directory (resource.NewFileAsset). The engine hashes it when it resolves
// the inputs that hold it.
func FileAsset(path string) resource.Asset { return resource.NewFileAsset(path) }

// RemoteAsset returns an asset of the file at uri (resource.NewURIAsset);
// only file:// URIs can be read so far.
func RemoteAsset(uri string) resource.Asset { return resource.NewURIAsset(uri) }

// FileArchive returns an archive of the folder, or .tar, .tgz, .tar.gz or
// .zip file, at path, relative to the project directory
// (resource.NewFileArchive).
func FileArchive(path string) resource.Archive { return resource.NewFileArchive(path) }

// RemoteArchive returns an archive of the archive file at uri
// (resource.NewURIArchive); only file:// URIs can be read so far.
func RemoteArchive(uri string) resource.Archive { return resource.NewURIArchive(uri) }

// AssetArchive returns an archive of assets and archives by name
// (resource.NewAssetArchive).
func AssetArchive(assets map[string]any) resource.Archive { return resource.NewAssetArchive(assets) }

// reference returns the resource reference a *Resource in an input value
// stands for: its URN and, for a custom resource, its ID (Computed while
// unknown, as in the preview of its create). The resource must be finished.
func reference(r *Resource) (resource.ResourceReference, error) {
	if !r.isDone() {
		return resource.ResourceReference{}, fmt.Errorf("the resource %s is referred to before it is finished", r.urn)
	}
	if r.err != nil {
		return resource.ResourceReference{}, fmt.Errorf("referring to %s: %w", r.urn, r.err)
	}
	ref := resource.ResourceReference{URN: r.urn}
	if r.custom {
		ref.ID = resource.Computed{}
		if r.idKnown {
			ref.ID = r.id
		}
	}
	return ref, nil
}
