package resource

// Asset is a blob of data a resource takes as an input (Pulumi's asset):
// exactly one of Text, Path or URI is set. Hash is the SHA-256 (hex) of its
// contents; an asset whose contents were elided (sent to a plugin's Diff,
// say) has only Hash.
type Asset struct {
	Hash string
	Text string
	Path string // relative paths resolve against the workspace
	URI  string
}

// Archive is a collection of assets (Pulumi's archive): exactly one of
// Assets (name -> Asset or Archive), Path (a folder, or a .tar, .tgz, .tar.gz
// or .zip file) or URI is set. Hash is the SHA-256 (hex) of its contents.
type Archive struct {
	Hash   string
	Assets map[string]any
	Path   string
	URI    string
}

// ResourceReference refers to another resource (Pulumi's resource
// reference). ID is the custom resource's ID: a string, Computed while it
// is not known yet, or nil for a component resource. PackageVersion is the
// version of the plugin serving its type ("" if none is known).
type ResourceReference struct {
	URN            URN
	ID             any
	PackageVersion string
}
