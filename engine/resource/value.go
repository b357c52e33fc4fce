package resource

// PropertyMap holds a resource's inputs or outputs. Values are, recursively:
// nil, bool, float64 (every number), string, []any, map[string]any, Secret or
// Computed. Normalize turns Go values such as int or []string into this shape.
type PropertyMap map[string]any

// Secret marks a value as secret: it is encrypted in state and redacted in
// logs, events and displays. Element is the plaintext value.
type Secret struct{ Element any }

// String redacts the secret so that formatting it with %v never leaks it.
func (Secret) String() string { return "[secret]" }

// GoString redacts the secret for %#v.
func (Secret) GoString() string { return "[secret]" }

// MarshalJSON redacts the secret; state serialization encrypts it instead.
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"[secret]"`), nil }

// Computed is a value that is not known yet (during preview, an output of a
// resource that will be created or changed).
type Computed struct{}

// String shows the unknown value the way Pulumi displays it.
func (Computed) String() string { return "[unknown]" }

// UnknownStringValue is how Pulumi's state and wire formats spell an unknown value.
const UnknownStringValue = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
