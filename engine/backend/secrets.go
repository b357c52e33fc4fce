package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/runnerhq/runner/engine/state"
)

// StateSecrets is what one project's state on a stack records of its
// secrets, read without decrypting anything.
type StateSecrets struct {
	Project string
	// Path names where the project's state is kept, for messages (the
	// folder backend's snapshot file).
	Path string
	// Provider is the snapshot's secrets provider, as Pulumi records it
	// (nil when the snapshot records none, or there is no snapshot).
	Provider *state.SecretsProvider
	// HasSecrets is set when the snapshot or a leftover journal holds a
	// secret value.
	HasSecrets bool
	// Unreadable is why the snapshot could not be parsed (nil when it
	// could): its salt is unknown, but the other projects' states are not
	// held up by it.
	Unreadable error
	// Indexed is set when the backend told Provider and HasSecrets from
	// an index it keeps, not from the state itself: before a run is
	// refused on them, the state is read (StateSecretsReader).
	Indexed bool
}

// StateSecretsReader is a Store whose StackSecrets may answer from an
// index (StateSecrets.Indexed): ReadStateSecrets reads what the project's
// state on stack records itself, and corrects the index with it.
type StateSecretsReader interface {
	ReadStateSecrets(ctx context.Context, project, stack string) (StateSecrets, error)
}

// Salt returns the "salt" of a passphrase secrets provider ("" when the
// state records no passphrase provider).
func (s StateSecrets) Salt() string { return s.Provider.PassphraseSalt() }

// StackSecrets returns, for every project with state on stack (sorted by
// project), what its state records of its secrets. It only reads files. A
// snapshot that does not parse is marked Unreadable, not an error.
func (f *Folder) StackSecrets(ctx context.Context, stack string) ([]StateSecrets, error) {
	if err := f.checkStack(stack); err != nil {
		return nil, err
	}
	projects, err := f.Projects(ctx, stack)
	if err != nil {
		return nil, err
	}
	out := make([]StateSecrets, 0, len(projects))
	for _, project := range projects {
		s, err := f.stateSecrets(project, stack)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (f *Folder) stateSecrets(project, stack string) (StateSecrets, error) {
	p, err := f.paths(project, stack)
	if err != nil {
		return StateSecrets{}, err
	}
	_, plain, err := readCheckpointFile(p.snapshot)
	if err != nil {
		return StateSecrets{Project: project, Path: p.snapshot}, err
	}
	journal, err := readOptional(p.journal)
	if err != nil {
		return StateSecrets{Project: project, Path: p.snapshot}, err
	}
	if plain != nil {
		if s, ok := describeCheckpoint(project, p.snapshot, plain, journal); ok {
			return s, nil
		}
	}
	return describeTheLongWay(project, p.snapshot, plain, journal), nil
}

// describeTheLongWay is DescribeSecrets of a checkpoint converted to an
// export (a checkpoint that does not convert is described as it is, and
// marked unreadable).
func describeTheLongWay(project, path string, plain, journal []byte) StateSecrets {
	snap := plain
	if plain != nil {
		if export, err := FromCheckpoint(path, plain); err == nil {
			snap = export
		}
	}
	return DescribeSecrets(project, path, snap, journal)
}

// DescribeSecrets tells what a project's stored snapshot (nil when none)
// and leftover journal (nil when none) record of its secrets, without
// decrypting anything; path names where the snapshot is kept.
func DescribeSecrets(project, path string, snap, journal []byte) StateSecrets {
	out := StateSecrets{Project: project, Path: path}
	secret := []byte(state.SecretSig)
	if snap != nil {
		var d struct {
			Deployment struct {
				SecretsProviders *struct {
					Type  string          `json:"type"`
					State json.RawMessage `json:"state"`
				} `json:"secrets_providers"`
			} `json:"deployment"`
		}
		if err := json.Unmarshal(snap, &d); err != nil {
			out.Unreadable = fmt.Errorf("reading the secrets provider of the state %s: %w", path, err)
		}
		if sp := d.Deployment.SecretsProviders; sp != nil {
			out.Provider = &state.SecretsProvider{Type: sp.Type, State: sp.State}
		}
		out.HasSecrets = bytes.Contains(snap, secret)
	}
	out.HasSecrets = out.HasSecrets || bytes.Contains(journal, secret)
	return out
}
