package bucket

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/state"
)

// The salt check (StackSecrets) runs before any lock, so that a wrong
// passphrase stops a run before any program starts; it needs what each
// project's checkpoint records of its secrets. Reading every checkpoint
// for it, and again under the project's lock, cost a GET per project more
// than a no-op run needs. So the stack keeps an index of what its
// checkpoints record, each entry under the ETag of the checkpoint it
// describes (.runner/stacks/<stack>/secrets.json). The listing that finds
// the stack's projects gives each checkpoint's ETag: a checkpoint the index
// describes under that ETag is not read (one GET of the index for the
// stack); one written since by anyone else (the Pulumi CLI) has another
// ETag and is read, so its salt is still checked before anything runs.
// Every entry describes the very checkpoint its ETag names, so a stale,
// lost or raced index costs reads, never a wrong answer. The stack lock's
// holder writes it once when a run ends (RecordStackRun), and only when
// what this process read or wrote differs from it.

// secretsIndex is the stack's index, by project.
type secretsIndex map[string]indexedState

// indexedState is what one checkpoint (the one whose ETag it holds)
// records of its secrets.
type indexedState struct {
	ETag       string                 `json:"etag"`
	Provider   *state.SecretsProvider `json:"secrets_providers,omitempty"`
	HasSecrets bool                   `json:"has_secrets,omitempty"`
}

// stackSecretsIndex is a stack's index as this process read it (stored)
// and as it knows it now (current).
type stackSecretsIndex struct {
	stored, current secretsIndex
}

func secretsIndexKey(stack string) string { return backend.RunnerStackPrefix(stack) + "secrets.json" }

// sameETag compares ETags as a listing and a read give them (quoted or not).
func sameETag(a, b string) bool {
	return a != "" && strings.Trim(a, `"`) == strings.Trim(b, `"`)
}

// describeCheckpoint tells what the checkpoint data (kept at path) records
// of its secrets; unreadable is why it does not parse.
func describeCheckpoint(path string, data []byte) (provider *state.SecretsProvider, hasSecrets bool, unreadable error) {
	var c struct {
		Checkpoint struct {
			Latest struct {
				SecretsProviders *state.SecretsProvider `json:"secrets_providers"`
			} `json:"latest"`
		} `json:"checkpoint"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		unreadable = fmt.Errorf("reading the secrets provider of %s: %w", path, err)
	}
	return c.Checkpoint.Latest.SecretsProviders, bytes.Contains(data, []byte(state.SecretSig)), unreadable
}

// checkpointProvider returns the secrets provider a checkpoint this
// process read or wrote records (nil when none), reading no further than
// it: Pulumi and runner write a deployment's secrets_providers before its
// resources, so a checkpoint of 10,000 resources costs microseconds, not
// the 0.1 s of a full decode.
func checkpointProvider(data []byte) (*state.SecretsProvider, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	for _, key := range []string{"checkpoint", "latest", "secrets_providers"} {
		if err := findKey(dec, key); err != nil {
			if errors.Is(err, errNoKey) {
				return nil, nil
			}
			return nil, err
		}
	}
	var p *state.SecretsProvider
	err := dec.Decode(&p)
	return p, err
}

var errNoKey = errors.New("no such key")

// findKey reads the start of an object and its members up to key's, whose
// value is read next; errNoKey when the object has no such member.
func findKey(dec *json.Decoder, key string) error {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("reading a checkpoint: not an object (%v)", err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if tok == key {
			return nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return errNoKey
}

// readSecretsIndex reads the stack's index (empty when there is none, or
// it does not parse: it is written again at the next run's end).
func (s *Store) readSecretsIndex(ctx context.Context, stack string) (secretsIndex, error) {
	o, err := s.obj.Get(ctx, secretsIndexKey(stack))
	if errors.Is(err, ErrNotExist) {
		return secretsIndex{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading what the states of stack %s record of their secrets: %w", stack, err)
	}
	var idx struct {
		States secretsIndex `json:"states"`
	}
	if json.Unmarshal(o.Data, &idx) != nil || idx.States == nil {
		return secretsIndex{}, nil
	}
	return idx.States, nil
}

// describe fills sec from the index when it describes the checkpoint
// listed with etag; false when it does not.
func (idx secretsIndex) describe(sec *backend.StateSecrets, etag string) bool {
	e, ok := idx[sec.Project]
	if !ok || !sameETag(e.ETag, etag) {
		return false
	}
	sec.Provider, sec.HasSecrets = e.Provider, e.HasSecrets
	return true
}

// keepSecretsIndex records the stack's index as read (stored) and as this
// process knows it now (current), for saveSecretsIndex.
func (s *Store) keepSecretsIndex(stack string, stored, current secretsIndex) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secretsIdx[stack] = &stackSecretsIndex{stored: stored, current: current}
}

// saveSecretsIndex writes the stack's index when this process read it and
// what it read or wrote since (the checkpoints it remembers) differs from
// it. A checkpoint kept compressed is left out (it is read each time).
func (s *Store) saveSecretsIndex(ctx context.Context, stack string) error {
	s.mu.Lock()
	si := s.secretsIdx[stack]
	var next secretsIndex
	if si != nil {
		next = secretsIndex{}
		for p, e := range si.current {
			next[p] = e
		}
		for key, seen := range s.seen {
			project, st, _ := strings.Cut(key, "/")
			if st != stack {
				continue
			}
			if seen.data == nil || seen.etag == "" || s.form[key] != "" {
				delete(next, project)
				continue
			}
			if e, ok := next[project]; ok && sameETag(e.ETag, seen.etag) {
				continue
			}
			prov, err := checkpointProvider(seen.data)
			if err != nil {
				delete(next, project)
				continue
			}
			has := bytes.Contains(seen.data, []byte(state.SecretSig))
			next[project] = indexedState{ETag: strings.Trim(seen.etag, `"`), Provider: prov, HasSecrets: has}
		}
	}
	s.mu.Unlock()
	if si == nil {
		return nil
	}
	before, _ := json.Marshal(si.stored)
	after, _ := json.Marshal(next)
	if bytes.Equal(before, after) {
		return nil
	}
	data := append(append([]byte(`{"version":1,"states":`), after...), "}\n"...)
	if _, err := s.obj.Put(ctx, secretsIndexKey(stack), data, Cond{}); err != nil {
		return fmt.Errorf("recording what the states of stack %s record of their secrets: %w", stack, err)
	}
	s.keepSecretsIndex(stack, next, next)
	return nil
}

var _ backend.StateSecretsReader = (*Store)(nil)

// ReadStateSecrets reads what the project's checkpoint on stack and its
// journals record of their secrets, not taking it from the stack's index
// (an index edited by hand can name a salt its checkpoint does not
// record), and puts it in what the index is written as at the run's end.
func (s *Store) ReadStateSecrets(ctx context.Context, project, stack string) (backend.StateSecrets, error) {
	if err := names(project, stack); err != nil {
		return backend.StateSecrets{}, err
	}
	read := secretsIndex{}
	sec, err := s.stateSecrets(ctx, project, stack, secretsIndex{}, "", read)
	if err != nil {
		return sec, err
	}
	ops, err := s.readJournals(ctx, project, stack)
	if err != nil {
		return sec, err
	}
	for _, j := range ops {
		sec.HasSecrets = sec.HasSecrets || bytes.Contains(j.data, []byte(state.SecretSig))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if si := s.secretsIdx[stack]; si != nil {
		current := secretsIndex{}
		for p, e := range si.current {
			if p != project {
				current[p] = e
			}
		}
		if e, ok := read[project]; ok {
			current[project] = e
		}
		si.current = current
	}
	return sec, nil
}
