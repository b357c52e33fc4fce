package state

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/resource"
)

// Snapshot is the state of one (project, stack): every resource the engine
// manages there, in dependency order (a resource comes after everything it
// refers to), plus operations that began and never ended (after a crash).
type Snapshot struct {
	Manifest          Manifest
	SecretsProvider   *SecretsProvider
	Resources         []*Resource
	PendingOperations []PendingOperation

	origin *origin // see SetOrigin
}

// Manifest records when and by what a snapshot was written.
type Manifest struct {
	Time    time.Time
	Magic   string
	Version string // the runner version that wrote it
}

// SecretsProvider names how the snapshot's secrets are encrypted, as Pulumi
// records it ("passphrase" with the stack config's salt in State).
type SecretsProvider struct {
	Type  string
	State json.RawMessage
}

// PassphraseProvider is what a snapshot records of a passphrase crypter
// with salt, as Pulumi writes it.
func PassphraseProvider(salt string) *SecretsProvider {
	return &SecretsProvider{Type: "passphrase", State: fmt.Appendf(nil, `{"salt":%q}`, salt)}
}

// PassphraseSalt returns the salt of a passphrase provider ("" for a nil
// provider, another type, or a state without a salt).
func (sp *SecretsProvider) PassphraseSalt() string {
	if sp == nil || sp.Type != "passphrase" {
		return ""
	}
	var st struct {
		Salt string `json:"salt"`
	}
	if json.Unmarshal(sp.State, &st) != nil {
		return ""
	}
	return st.Salt
}

// Resource is one resource's recorded state. Inputs and Outputs hold
// normalized property values with secrets as resource.Secret (plaintext in
// memory; encrypted only when serialized).
type Resource struct {
	URN                     resource.URN
	Custom                  bool // false for components and the root stack
	Delete                  bool // condemned: to be deleted once its replacement exists
	ID                      string
	Type                    string
	Inputs                  resource.PropertyMap
	Outputs                 resource.PropertyMap
	Parent                  resource.URN
	Protect                 bool
	External                bool
	Dependencies            []resource.URN
	PropertyDependencies    map[string][]resource.URN
	Provider                string // "<provider URN>::<provider ID>" for custom resources
	PendingReplacement      bool
	AdditionalSecretOutputs []string
	RetainOnDelete          bool
	IgnoreChanges           []string
	InitErrors              []string
	// CustomTimeouts bound the resource's create, update and delete (zero:
	// the plugin's default), recorded as Pulumi's customTimeouts.
	CustomTimeouts CustomTimeouts
	// ImportID is the ID the resource was imported with ("": created).
	ImportID string
	// DeletedWith is the resource whose delete deletes this one too ("":
	// none), as Pulumi records it.
	DeletedWith resource.URN
	Created     *time.Time
	Modified    *time.Time
}

// OperationType is the kind of a pending operation, as Pulumi spells it.
type OperationType string

// The pending operation kinds.
const (
	OperationCreating OperationType = "creating"
	OperationUpdating OperationType = "updating"
	OperationDeleting OperationType = "deleting"
	OperationReading  OperationType = "reading"
)

// PendingOperation is a step that began and whose end was never recorded.
type PendingOperation struct {
	Resource *Resource
	Type     OperationType
}

// CustomTimeouts bound how long a resource's create, update and delete may
// take (0: the plugin's default).
type CustomTimeouts struct {
	Create, Update, Delete time.Duration
}
