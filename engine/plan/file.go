package plan

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// Version is the version of the plan encoding Marshal writes and
// Unmarshal reads.
const Version = 1

// planJSON is a plan as encoded in a plan file.
type planJSON struct {
	Version int            `json:"version"`
	Project string         `json:"project"`
	Stack   string         `json:"stack"`
	Base    string         `json:"base"`
	Steps   []planStepJSON `json:"steps"`
	Outputs map[string]any `json:"outputs,omitempty"`
}

type planStepJSON struct {
	Op                  Op             `json:"op"`
	URN                 resource.URN   `json:"urn"`
	Type                string         `json:"type"`
	Keys                []string       `json:"keys,omitempty"`
	Replaces            []string       `json:"replaces,omitempty"`
	DeleteBeforeReplace bool           `json:"deleteBeforeReplace,omitempty"`
	Protect             bool           `json:"protect,omitempty"`
	RetainOnDelete      bool           `json:"retainOnDelete,omitempty"`
	Deps                []resource.URN `json:"deps,omitempty"`
	OldInputs           map[string]any `json:"oldInputs,omitempty"`
	NewInputs           map[string]any `json:"newInputs,omitempty"`
	RandomSeed          []byte         `json:"randomSeed,omitempty"` // base64
	Unchecked           bool           `json:"unchecked,omitempty"`
}

// Marshal encodes p as JSON, with property values encoded as the state
// encodes them: secrets encrypted by c (no plaintext secret in the result),
// unknown values as Pulumi's unknown sentinel.
func Marshal(ctx context.Context, p *Plan, c resource.Crypter) ([]byte, error) {
	out := planJSON{Version: Version, Project: p.Project, Stack: p.Stack, Base: p.Base, Steps: make([]planStepJSON, len(p.Steps))}
	var err error
	if out.Outputs, err = state.MarshalProperties(ctx, p.Outputs, c); err != nil {
		return nil, fmt.Errorf("encoding the plan's stack outputs: %w", err)
	}
	for i, s := range p.Steps {
		js := planStepJSON{Op: s.Op, URN: s.URN, Type: s.Type, Keys: s.Keys, Replaces: s.Replaces, DeleteBeforeReplace: s.DeleteBeforeReplace, Deps: s.Deps,
			Protect: s.Protect, RetainOnDelete: s.RetainOnDelete, RandomSeed: s.RandomSeed, Unchecked: s.Unchecked}
		if js.OldInputs, err = state.MarshalProperties(ctx, s.OldInputs, c); err != nil {
			return nil, fmt.Errorf("encoding the plan's %s step of %s: old inputs: %w", s.Op, s.URN, err)
		}
		if js.NewInputs, err = state.MarshalProperties(ctx, s.NewInputs, c); err != nil {
			return nil, fmt.Errorf("encoding the plan's %s step of %s: new inputs: %w", s.Op, s.URN, err)
		}
		out.Steps[i] = js
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the plan: %w", err)
	}
	return append(data, '\n'), nil
}

// Unmarshal decodes what Marshal wrote, decrypting secrets with c.
// A plan of another encoding version is refused with an error saying so.
func Unmarshal(ctx context.Context, data []byte, c resource.Crypter) (*Plan, error) {
	var in planJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("reading the plan: it is not a plan file: %w", err)
	}
	if in.Version != Version {
		return nil, fmt.Errorf("reading the plan: it has version %d and this runner reads version %d; run preview again to make a new plan", in.Version, Version)
	}
	p := &Plan{Project: in.Project, Stack: in.Stack, Base: in.Base, Steps: make([]Step, len(in.Steps))}
	var err error
	if p.Outputs, err = state.UnmarshalProperties(ctx, in.Outputs, c); err != nil {
		return nil, fmt.Errorf("reading the plan's stack outputs: %w", err)
	}
	for i, js := range in.Steps {
		if !knownOp(js.Op) {
			return nil, fmt.Errorf("reading the plan: step %d (%s) has the operation %q, which this runner does not have; run preview again to make a new plan", i+1, js.URN, js.Op)
		}
		s := Step{Op: js.Op, URN: js.URN, Type: js.Type, Keys: js.Keys, Replaces: js.Replaces, DeleteBeforeReplace: js.DeleteBeforeReplace, Deps: js.Deps,
			Protect: js.Protect, RetainOnDelete: js.RetainOnDelete, RandomSeed: js.RandomSeed, Unchecked: js.Unchecked}
		if js.OldInputs != nil {
			if s.OldInputs, err = state.UnmarshalProperties(ctx, js.OldInputs, c); err != nil {
				return nil, fmt.Errorf("reading the plan's %s step of %s: old inputs: %w", js.Op, js.URN, err)
			}
		}
		if !isDelete(js.Op) {
			if s.NewInputs, err = state.UnmarshalProperties(ctx, js.NewInputs, c); err != nil {
				return nil, fmt.Errorf("reading the plan's %s step of %s: new inputs: %w", js.Op, js.URN, err)
			}
		}
		p.Steps[i] = s
	}
	return p, nil
}

// knownOp reports whether op is one of the operations a plan's steps have
// (a replacement is one "replace" step; refreshes are not planned).
func knownOp(op Op) bool {
	switch op {
	case OpSame, OpCreate, OpUpdate, OpReplace, OpDeleteReplaced, OpDelete, OpImport,
		OpRead, OpReadReplacement, OpReadDiscard, OpDiscardReplaced:
		return true
	}
	return false
}
