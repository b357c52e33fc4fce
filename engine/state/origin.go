package state

// origin is what SetOrigin records: the value it was set on and its shape
// then.
type origin struct {
	snap           *Snapshot
	version        string
	resources, ops int
	first          *Resource
}

// SetOrigin records that s is, as it is now, the stored version named
// version (a backend's name for what it stores, such as a checksum). A
// backend sets it on the snapshot Load returns, so that an operation that
// begins from that very value need not store it again.
func (s *Snapshot) SetOrigin(version string) {
	s.origin = &origin{snap: s, version: version, resources: len(s.Resources), ops: len(s.PendingOperations), first: firstResource(s)}
}

// Origin returns the stored version s is (see SetOrigin), "" when s is not
// known to be one: it was built in memory, or it is a copy of a snapshot
// read (a copy of the Snapshot struct has no origin), or resources or
// pending operations were added or removed since.
func (s *Snapshot) Origin() string {
	if s == nil || s.origin == nil {
		return ""
	}
	o := s.origin
	if o.snap != s || o.resources != len(s.Resources) || o.ops != len(s.PendingOperations) || o.first != firstResource(s) {
		return ""
	}
	return o.version
}

func firstResource(s *Snapshot) *Resource {
	if len(s.Resources) == 0 {
		return nil
	}
	return s.Resources[0]
}
