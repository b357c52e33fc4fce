package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// stored is what one query reads of a (project, stack): the snapshot, its
// hash and the journal's lines, at one moment.
type stored struct {
	data    []byte // nil when there is no snapshot
	hash    string
	journal []byte // the journal's lines in order, empty when none
}

// read reads the snapshot and the journal in one statement (so that both
// are of one moment).
func (s *Store) read(ctx context.Context, stack, project string) (stored, error) {
	var st stored
	var hash *string
	err := s.pool.QueryRow(ctx, `SELECT s.data, s.sha256,
		coalesce((SELECT string_agg(j.line, ''::bytea ORDER BY j.op_id, j.seq) FROM runner_journal j
			WHERE j.stack = $1 AND j.project = $2), ''::bytea)
		FROM (SELECT) AS one LEFT JOIN runner_snapshots s ON s.stack = $1 AND s.project = $2`,
		stack, project).Scan(&st.data, &hash, &st.journal)
	if err != nil {
		return st, fmt.Errorf("reading the state of project %s on stack %s in %s: %w", project, stack, s.url, err)
	}
	if hash != nil {
		st.hash = *hash
	}
	return st, nil
}

func (s *Store) where(stack, project string) string {
	return fmt.Sprintf("of project %s on stack %s in %s", project, stack, s.url)
}

// Load returns the (project, stack) snapshot, its secrets decrypted by
// crypter, with a journal left by an interrupted operation folded in; nil
// when there is neither.
func (s *Store) Load(ctx context.Context, project, stack string, crypter resource.Crypter) (*state.Snapshot, error) {
	if err := checkNames(stack, project); err != nil {
		return nil, err
	}
	st, err := s.read(ctx, stack, project)
	if err != nil {
		return nil, err
	}
	if st.data != nil {
		s.keepSeen(stack, project, st.data, st.hash)
	}
	var snap *state.Snapshot
	if st.data != nil {
		if snap, err = state.Unmarshal(ctx, st.data, crypter); err == nil {
			err = state.Check(snap, project, stack)
		}
		if err != nil {
			return nil, fmt.Errorf("reading the state %s: %w", s.where(stack, project), err)
		}
	}
	folded, err := backend.FoldJournal(ctx, snap, st.hash, st.journal, s.where(stack, project), project, stack, crypter)
	if err != nil || folded != nil {
		return folded, err
	}
	if snap != nil {
		snap.SetOrigin(st.hash)
	}
	return snap, nil
}

// StateDigest names what is stored for (project, stack): the snapshot's
// hash and the journal's rows; "" when there is neither.
func (s *Store) StateDigest(ctx context.Context, project, stack string) (string, error) {
	if err := checkNames(stack, project); err != nil {
		return "", err
	}
	var hash *string
	var rows int64
	var last string
	err := s.pool.QueryRow(ctx, `SELECT (SELECT sha256 FROM runner_snapshots WHERE stack = $1 AND project = $2),
		count(*), coalesce(max(op_id || '/' || seq), '') FROM runner_journal WHERE stack = $1 AND project = $2`,
		stack, project).Scan(&hash, &rows, &last)
	if err != nil {
		return "", fmt.Errorf("reading the state %s to tell whether it changed: %w", s.where(stack, project), err)
	}
	if hash == nil && rows == 0 {
		return "", nil
	}
	h := ""
	if hash != nil {
		h = *hash
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\n%d\n%s", h, rows, last))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// Export returns the stored snapshot as it is (a Pulumi deployment with
// its ciphertexts), a leftover journal not folded in.
func (s *Store) Export(ctx context.Context, project, stack string) ([]byte, error) {
	if err := checkNames(stack, project); err != nil {
		return nil, err
	}
	st, err := s.read(ctx, stack, project)
	if err != nil {
		return nil, err
	}
	if st.data == nil {
		return nil, fmt.Errorf("exporting project %s of stack %s: %w", project, stack, backend.ErrNotFound)
	}
	return st.data, nil
}

// Outputs returns the outputs of the project's root stack resource.
func (s *Store) Outputs(ctx context.Context, project, stack string, crypter resource.Crypter) (resource.PropertyMap, error) {
	snap, err := s.Load(ctx, project, stack, crypter)
	if err != nil {
		return nil, err
	}
	return backend.RootOutputs(snap, project, stack)
}
