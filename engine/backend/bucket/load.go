package bucket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// readCheckpoint reads the (project, stack) checkpoint: its bytes and ETag,
// nil when there is none.
// A checkpoint the Pulumi CLI wrote compressed (<stack>.json.gz or
// <stack>.json.zst, when PULUMI_DIY_BACKEND_GZIP or _ZSTD is set) is read
// when there is no plain one, its Data decompressed, and written back in
// its form (compressed.go).
func (s *Store) readCheckpoint(ctx context.Context, project, stack string) (*Object, error) {
	o, err := s.obj.Get(ctx, checkpointKey(project, stack))
	ext := ""
	if errors.Is(err, ErrNotExist) {
		o, ext, err = s.readCompressed(ctx, project, stack)
		if o == nil && err == nil {
			return nil, nil
		}
	}
	if err == nil && ext != "" {
		o.Data, err = decompress(ext, o.Data)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the state of project %s on stack %s in %s: %w", project, stack, s.obj.Describe(), err)
	}
	s.setForm(project, stack, ext)
	return o, nil
}

// decode decodes a checkpoint into a snapshot and checks it (in one pass,
// as the folder does: state.UnmarshalCheckpoint).
func (s *Store) decode(ctx context.Context, project, stack string, data []byte, c resource.Crypter) (*state.Snapshot, error) {
	where := s.obj.Describe() + "/" + checkpointKey(project, stack)
	snap, err := state.UnmarshalCheckpoint(ctx, data, c)
	if err == nil {
		err = state.Check(snap, project, stack)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the state %s: %w", where, err)
	}
	return snap, nil
}

// opJournal is the journal of one operation: its segments in order.
type opJournal struct {
	op   string
	keys []string
	data []byte
	info backend.JournalInfo
	done bool // applied (sealed for the stored checkpoint or one since replaced): only to be removed
}

// readJournals lists the journal segments of (project, stack) and reads
// them, grouped by operation, oldest operation first; no request when the
// project is known to have none (noJournal).
func (s *Store) readJournals(ctx context.Context, project, stack string) ([]*opJournal, error) {
	if s.noJournal(project, stack) {
		return nil, nil
	}
	prefix := journalPrefix(project, stack)
	list, err := s.obj.List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("listing the journal of project %s on stack %s: %w", project, stack, err)
	}
	if len(list) == 0 {
		return nil, nil
	}
	datas := make([][]byte, len(list))
	errs := make([]error, len(list))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i, o := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			obj, err := s.obj.Get(ctx, o.Key)
			if err == nil {
				datas[i] = obj.Data
			} else if !errors.Is(err, ErrNotExist) {
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("reading the journal of project %s on stack %s: %w", project, stack, err)
	}
	var ops []*opJournal
	for i, o := range list {
		op, _, _ := strings.Cut(strings.TrimPrefix(o.Key, prefix), "/")
		if len(ops) == 0 || ops[len(ops)-1].op != op {
			ops = append(ops, &opJournal{op: op})
		}
		j := ops[len(ops)-1]
		j.keys = append(j.keys, o.Key)
		j.data = append(j.data, datas[i]...)
	}
	sort.Slice(ops, func(i, k int) bool { return ops[i].op < ops[k].op })
	for _, j := range ops {
		if j.info, err = backend.ReadJournal(j.data); err != nil {
			return nil, fmt.Errorf("reading the journal %s/%s%s: %w", s.obj.Describe(), prefix, j.op, err)
		}
	}
	return ops, nil
}

// pending returns the journals not applied to the checkpoint whose hash is
// stored (a killed run's): those never sealed, and those sealed for a
// checkpoint that was not stored after all (the run was killed between its
// journal's commit segment and the checkpoint's write), which began from
// the stored one.
func pending(ops []*opJournal, stored string) []*opJournal {
	var out []*opJournal
	for _, j := range ops {
		if j.info.Committed == "" || j.info.Committed != stored && j.info.Base == stored {
			out = append(out, j)
		}
	}
	return out
}

// applied returns the sealed journals that pending leaves out: committed
// to the stored checkpoint, or to one since replaced (a run killed after
// its checkpoint's write, before its segments were removed).
func applied(ops []*opJournal, stored string) []*opJournal {
	var out []*opJournal
	for _, j := range ops {
		if j.info.Committed != "" && (j.info.Committed == stored || j.info.Base != stored) {
			out = append(out, j)
		}
	}
	return out
}

// Load returns the (project, stack) snapshot, the journal of a run that
// did not commit folded in.
func (s *Store) Load(ctx context.Context, project, stack string, c resource.Crypter) (*state.Snapshot, error) {
	if err := names(project, stack); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		snap, folded, err := s.loadOnce(ctx, project, stack, c)
		var other *otherBaseError
		if errors.As(err, &other) && attempt < 5 {
			continue
		}
		if folded != nil {
			return folded, err
		}
		return snap, err
	}
}

type otherBaseError struct{ where string }

func (e *otherBaseError) Error() string {
	return fmt.Sprintf("reading the journal %s: it began from another version of the state than the one stored; remove its segments to use the state as it is", e.where)
}

func (s *Store) loadOnce(ctx context.Context, project, stack string, c resource.Crypter) (snap, folded *state.Snapshot, err error) {
	o, err := s.readCheckpoint(ctx, project, stack)
	if err != nil {
		return nil, nil, err
	}
	var seen seenState
	if o != nil {
		if snap, err = s.decode(ctx, project, stack, o.Data, c); err != nil {
			return nil, nil, err
		}
		seen = seenState{data: o.Data, etag: o.ETag, hash: backend.SnapshotHash(o.Data)}
		snap.SetOrigin(seen.hash)
	}
	ops, err := s.readJournals(ctx, project, stack)
	if err != nil {
		return nil, nil, err
	}
	s.remember(project, stack, seen)
	if done := applied(ops, seen.hash); len(done) > 0 && s.holds(project, stack) {
		// A run killed after its commit left these; removed here, under the
		// lock, so that a run that changes nothing removes them too (a
		// failure leaves them to the next run).
		_ = s.retire(ctx, done)
	}
	for _, j := range pending(ops, seen.hash) {
		where := s.obj.Describe() + "/" + journalPrefix(project, stack) + j.op
		if j.info.Base != seen.hash {
			return nil, nil, &otherBaseError{where: where}
		}
		f, err := backend.FoldJournal(ctx, snap, seen.hash, j.data, where, project, stack, c)
		if err != nil || f == nil {
			return snap, nil, err
		}
		return snap, f, nil
	}
	return snap, nil, nil
}

// StateDigest names what is stored for (project, stack): the checkpoint
// and the journal segments of runs that did not commit.
func (s *Store) StateDigest(ctx context.Context, project, stack string) (string, error) {
	if err := names(project, stack); err != nil {
		return "", err
	}
	o, err := s.readCheckpoint(ctx, project, stack)
	if err != nil {
		return "", err
	}
	var list []ObjectInfo
	if !s.noJournal(project, stack) {
		if list, err = s.obj.List(ctx, journalPrefix(project, stack)); err != nil {
			return "", err
		}
	}
	if o == nil && len(list) == 0 {
		return "", nil
	}
	var b bytes.Buffer
	if o != nil {
		fmt.Fprintf(&b, "%s\n", backend.SnapshotHash(o.Data))
	}
	for _, l := range list {
		fmt.Fprintf(&b, "%s %s %d\n", l.Key, l.ETag, l.Size)
	}
	return "sha256:" + backend.SnapshotHash(b.Bytes()), nil
}

// opaque decodes the (project, stack) checkpoint data without decrypting
// its secrets (never to be saved).
func (s *Store) opaque(project, stack string, data []byte) (*state.Snapshot, error) {
	snap, err := state.UnmarshalCheckpointOpaque(data)
	if err != nil {
		return nil, fmt.Errorf("reading the state %s/%s: %w", s.obj.Describe(), checkpointKey(project, stack), err)
	}
	return snap, nil
}
