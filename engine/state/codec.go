package state

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/runnerhq/runner/engine/resource"
)

// DeploymentVersion is the deployment format version written and read.
const DeploymentVersion = 3

// resourceJSON is a resource as Pulumi's ResourceV3 spells it.
type resourceJSON struct {
	URN                     resource.URN              `json:"urn"`
	Custom                  bool                      `json:"custom"`
	Delete                  bool                      `json:"delete,omitempty"`
	ID                      string                    `json:"id,omitempty"`
	Type                    string                    `json:"type"`
	Inputs                  map[string]any            `json:"inputs,omitempty"`
	Outputs                 map[string]any            `json:"outputs,omitempty"`
	Parent                  resource.URN              `json:"parent,omitempty"`
	Protect                 bool                      `json:"protect,omitempty"`
	External                bool                      `json:"external,omitempty"`
	Dependencies            []resource.URN            `json:"dependencies,omitempty"`
	InitErrors              []string                  `json:"initErrors,omitempty"`
	Provider                string                    `json:"provider,omitempty"`
	PropertyDependencies    map[string][]resource.URN `json:"propertyDependencies,omitempty"`
	PendingReplacement      bool                      `json:"pendingReplacement,omitempty"`
	AdditionalSecretOutputs []string                  `json:"additionalSecretOutputs,omitempty"`
	RetainOnDelete          bool                      `json:"retainOnDelete,omitempty"`
	Created                 *time.Time                `json:"created,omitempty"`
	Modified                *time.Time                `json:"modified,omitempty"`
	IgnoreChanges           []string                  `json:"ignoreChanges,omitempty"`
	CustomTimeouts          *customTimeoutsJSON       `json:"customTimeouts,omitempty"`
	ImportID                string                    `json:"importID,omitempty"`
	DeletedWith             resource.URN              `json:"deletedWith,omitempty"`
}

// customTimeoutsJSON is Pulumi's CustomTimeouts: float seconds.
type customTimeoutsJSON struct {
	Create float64 `json:"create,omitempty"`
	Update float64 `json:"update,omitempty"`
	Delete float64 `json:"delete,omitempty"`
}

type manifestJSON struct {
	Time    time.Time `json:"time"`
	Magic   string    `json:"magic"`
	Version string    `json:"version"`
}

type secretsProviderJSON struct {
	Type  string          `json:"type"`
	State json.RawMessage `json:"state,omitempty"`
}

type operationJSON struct {
	Resource resourceJSON  `json:"resource"`
	Type     OperationType `json:"type"`
}

type deploymentJSON struct {
	Manifest          manifestJSON         `json:"manifest"`
	SecretsProviders  *secretsProviderJSON `json:"secrets_providers,omitempty"`
	Resources         []resourceJSON       `json:"resources,omitempty"`
	PendingOperations []operationJSON      `json:"pending_operations,omitempty"`
}

type exportJSON struct {
	Version    int             `json:"version"`
	Deployment *deploymentJSON `json:"deployment"`
}

// NewMagic returns the manifest's magic cookie as Pulumi computes it: the
// hex SHA-256 of the version string ("" for an empty version).
func (m Manifest) NewMagic() string {
	if m.Version == "" {
		return ""
	}
	return fmt.Sprintf("%x", sha256.Sum256([]byte(m.Version)))
}

// Marshal encodes snap as a Pulumi deployment (version 3), encrypting its
// secrets with c. The manifest's magic is recomputed from its version.
func Marshal(ctx context.Context, snap *Snapshot, c resource.Crypter) ([]byte, error) {
	d, err := encodeDeployment(ctx, snap, c)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(exportJSON{Version: DeploymentVersion, Deployment: d}) // compact: indenting doubles the cost on large stacks
	if err != nil {
		return nil, fmt.Errorf("encoding the deployment: %w", err)
	}
	return append(out, '\n'), nil
}

// encodeDeployment encodes snap as Pulumi's DeploymentV3, encrypting its
// secrets with c.
func encodeDeployment(ctx context.Context, snap *Snapshot, c resource.Crypter) (*deploymentJSON, error) {
	codec := valueCodec{crypter: c}
	d := deploymentJSON{Manifest: manifestJSON{Time: snap.Manifest.Time.UTC(), Version: snap.Manifest.Version}}
	if d.Manifest.Version == "" {
		d.Manifest.Version = "runner"
	}
	d.Manifest.Magic = Manifest{Version: d.Manifest.Version}.NewMagic()
	if sp := snap.SecretsProvider; sp != nil {
		d.SecretsProviders = &secretsProviderJSON{Type: sp.Type, State: sp.State}
	}
	d.Resources = make([]resourceJSON, 0, len(snap.Resources))
	for _, r := range snap.Resources {
		rj, err := codec.encodeResource(ctx, r)
		if err != nil {
			return nil, err
		}
		d.Resources = append(d.Resources, rj)
	}
	for _, op := range snap.PendingOperations {
		if op.Resource == nil {
			continue
		}
		rj, err := codec.encodeResource(ctx, op.Resource)
		if err != nil {
			return nil, fmt.Errorf("pending operation: %w", err)
		}
		d.PendingOperations = append(d.PendingOperations, operationJSON{Resource: rj, Type: op.Type})
	}
	return &d, nil
}

// Unmarshal decodes a Pulumi deployment (version 3), decrypting its secrets
// with c. It does not run Check.
func Unmarshal(ctx context.Context, data []byte, c resource.Crypter) (*Snapshot, error) {
	return unmarshal(ctx, data, valueCodec{crypter: c})
}

// UnmarshalOpaque decodes a deployment without decrypting its secrets: each
// secret becomes a resource.Secret with a nil element. It serves to inspect
// or check a snapshot without the passphrase; never save what it returns.
func UnmarshalOpaque(data []byte) (*Snapshot, error) {
	return unmarshal(context.Background(), data, valueCodec{opaque: true})
}

func unmarshal(ctx context.Context, data []byte, codec valueCodec) (*Snapshot, error) {
	var u exportJSON
	if err := json.Unmarshal(data, &u); err != nil {
		var v struct {
			Version int `json:"version"`
		}
		if json.Unmarshal(data, &v) == nil && v.Version != DeploymentVersion {
			return nil, fmt.Errorf("the deployment has version %d; only version %d is supported", v.Version, DeploymentVersion)
		}
		return nil, fmt.Errorf("the deployment is not a version 3 deployment: %w", err)
	}
	if u.Version != DeploymentVersion {
		return nil, fmt.Errorf("the deployment has version %d; only version %d is supported", u.Version, DeploymentVersion)
	}
	if u.Deployment == nil {
		return nil, fmt.Errorf(`the deployment has no "deployment" object (want {"version": %d, "deployment": {...}}, as pulumi stack export writes it)`, DeploymentVersion)
	}
	return decodeDeployment(ctx, u.Deployment, codec)
}

// decodeDeployment decodes Pulumi's DeploymentV3 with codec.
func decodeDeployment(ctx context.Context, d *deploymentJSON, codec valueCodec) (*Snapshot, error) {
	snap := &Snapshot{Manifest: Manifest{Time: d.Manifest.Time, Magic: d.Manifest.Magic, Version: d.Manifest.Version}}
	if sp := d.SecretsProviders; sp != nil {
		snap.SecretsProvider = &SecretsProvider{Type: sp.Type, State: sp.State}
	}
	snap.Resources = make([]*Resource, 0, len(d.Resources))
	for i := range d.Resources {
		r, err := codec.decodeResource(ctx, &d.Resources[i])
		if err != nil {
			return nil, err
		}
		snap.Resources = append(snap.Resources, r)
	}
	for i := range d.PendingOperations {
		op := &d.PendingOperations[i]
		r, err := codec.decodeResource(ctx, &op.Resource)
		if err != nil {
			return nil, fmt.Errorf("pending operation: %w", err)
		}
		snap.PendingOperations = append(snap.PendingOperations, PendingOperation{Resource: r, Type: op.Type})
	}
	return snap, nil
}

// MarshalResource encodes one resource as Pulumi's ResourceV3 JSON (compact),
// encrypting its secrets with c. Journal entries use it.
func MarshalResource(ctx context.Context, r *Resource, c resource.Crypter) (json.RawMessage, error) {
	rj, err := valueCodec{crypter: c}.encodeResource(ctx, r)
	if err != nil {
		return nil, err
	}
	return json.Marshal(rj)
}

// UnmarshalResource decodes what MarshalResource wrote, decrypting with c.
func UnmarshalResource(ctx context.Context, data json.RawMessage, c resource.Crypter) (*Resource, error) {
	var rj resourceJSON
	if err := json.Unmarshal(data, &rj); err != nil {
		return nil, fmt.Errorf("a resource is not valid JSON: %w", err)
	}
	return valueCodec{crypter: c}.decodeResource(ctx, &rj)
}

func (c valueCodec) encodeResource(ctx context.Context, r *Resource) (resourceJSON, error) {
	rj := resourceJSON{
		URN: r.URN, Custom: r.Custom, Delete: r.Delete, ID: r.ID, Type: r.Type,
		Parent: r.Parent, Protect: r.Protect, External: r.External,
		Dependencies: r.Dependencies, InitErrors: r.InitErrors, Provider: r.Provider,
		PendingReplacement: r.PendingReplacement, AdditionalSecretOutputs: r.AdditionalSecretOutputs,
		RetainOnDelete: r.RetainOnDelete, IgnoreChanges: r.IgnoreChanges,
		Created: utc(r.Created), Modified: utc(r.Modified), ImportID: r.ImportID,
		CustomTimeouts: r.CustomTimeouts.toJSON(), DeletedWith: r.DeletedWith,
	}
	if len(r.PropertyDependencies) > 0 {
		rj.PropertyDependencies = listedDependencies(r.PropertyDependencies)
	}
	var err error
	if rj.Inputs, err = c.encodeMap(ctx, r.Inputs); err != nil {
		return rj, fmt.Errorf("resource %s: inputs: %w", r.URN, err)
	}
	if rj.Outputs, err = c.encodeMap(ctx, r.Outputs); err != nil {
		return rj, fmt.Errorf("resource %s: outputs: %w", r.URN, err)
	}
	return rj, nil
}

// listedDependencies returns pd with each property's missing list (a
// property that depends on nothing) an empty one, as Pulumi records it:
// its deployment schema refuses null there, so a stack exported with one
// could not be imported again. pd itself when it has none.
func listedDependencies(pd map[string][]resource.URN) map[string][]resource.URN {
	var out map[string][]resource.URN
	for k, v := range pd {
		if v != nil {
			continue
		}
		if out == nil {
			out = maps.Clone(pd)
		}
		out[k] = []resource.URN{}
	}
	if out == nil {
		return pd
	}
	return out
}

func (c valueCodec) decodeResource(ctx context.Context, rj *resourceJSON) (*Resource, error) {
	r := &Resource{
		URN: rj.URN, Custom: rj.Custom, Delete: rj.Delete, ID: rj.ID, Type: rj.Type,
		Parent: rj.Parent, Protect: rj.Protect, External: rj.External,
		Dependencies: rj.Dependencies, InitErrors: rj.InitErrors, Provider: rj.Provider,
		PropertyDependencies: rj.PropertyDependencies, PendingReplacement: rj.PendingReplacement,
		AdditionalSecretOutputs: rj.AdditionalSecretOutputs, RetainOnDelete: rj.RetainOnDelete,
		IgnoreChanges: rj.IgnoreChanges, Created: rj.Created, Modified: rj.Modified,
		ImportID: rj.ImportID, CustomTimeouts: rj.CustomTimeouts.fromJSON(), DeletedWith: rj.DeletedWith,
	}
	var err error
	if r.Inputs, err = c.decodeMap(ctx, rj.Inputs); err != nil {
		return nil, fmt.Errorf("resource %s: inputs: %w", rj.URN, err)
	}
	if r.Outputs, err = c.decodeMap(ctx, rj.Outputs); err != nil {
		return nil, fmt.Errorf("resource %s: outputs: %w", rj.URN, err)
	}
	return r, nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
