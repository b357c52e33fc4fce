package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// Journal line kinds besides the EntryKind values.
const (
	lineOpen   = "open"
	lineCommit = "commit"
)

// journalLine is one line of journal.jsonl. Resources are Pulumi ResourceV3
// JSON with secrets encrypted. An end line carries no Old: it is the one of
// its begin line.
type journalLine struct {
	Kind     string          `json:"kind"`
	Seq      int64           `json:"seq,omitempty"`
	Op       string          `json:"op,omitempty"`
	Old      json.RawMessage `json:"old,omitempty"`
	New      json.RawMessage `json:"new,omitempty"`
	Base     string          `json:"base,omitempty"`     // open: SHA-256 of the snapshot begun from ("none")
	Snapshot string          `json:"snapshot,omitempty"` // commit: SHA-256 of the snapshot written
	Time     *time.Time      `json:"time,omitempty"`
}

const noSnapshot = "none"

func baseName(hash string) string {
	if hash == "" {
		return noSnapshot
	}
	return hash
}

// encodeEntry renders e as one journal line (with its newline).
func encodeEntry(ctx context.Context, e Entry, c resource.Crypter) ([]byte, error) {
	line := journalLine{Kind: string(e.Kind), Seq: e.Seq, Op: e.Op}
	var err error
	if e.Old != nil && e.Kind == EntryBegin {
		if line.Old, err = state.MarshalResource(ctx, e.Old, c); err != nil {
			return nil, err
		}
	}
	if e.New != nil && e.Kind != EntryFailure {
		if line.New, err = state.MarshalResource(ctx, e.New, c); err != nil {
			return nil, err
		}
	}
	data, err := json.Marshal(line)
	if err != nil {
		return nil, fmt.Errorf("encoding a journal entry: %w", err)
	}
	return append(data, '\n'), nil
}

// parseJournal splits a journal into lines. A last line that is cut short
// (no newline, or not JSON) is dropped: its write was never acknowledged.
// Any other bad line is an error naming its number. valid is the length of
// the intact prefix.
func parseJournal(data []byte) (lines []journalLine, valid int, err error) {
	rest := data
	for n := 1; len(rest) > 0; n++ {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break // torn tail: no newline
		}
		raw := rest[:i]
		rest = rest[i+1:]
		var l journalLine
		if err := json.Unmarshal(raw, &l); err != nil || l.Kind == "" {
			if len(bytes.TrimSpace(rest)) == 0 {
				break // torn tail
			}
			return nil, 0, fmt.Errorf("line %d is not a journal entry", n)
		}
		lines = append(lines, l)
		valid = len(data) - len(rest)
	}
	return lines, valid, nil
}

// decodedEntry is a journal line with its resources decoded.
type decodedEntry struct {
	kind     string
	seq      int64
	op       string
	old, new *state.Resource
}

func decodeLine(ctx context.Context, l journalLine, c resource.Crypter) (decodedEntry, error) {
	e := decodedEntry{kind: l.Kind, seq: l.Seq, op: l.Op}
	var err error
	if len(l.Old) > 0 {
		if e.old, err = state.UnmarshalResource(ctx, l.Old, c); err != nil {
			return e, err
		}
	}
	if len(l.New) > 0 {
		if e.new, err = state.UnmarshalResource(ctx, l.New, c); err != nil {
			return e, err
		}
	}
	return e, nil
}

// fold applies the journal's step lines to base (which it does not modify)
// following the engine's journal semantics: a successful step is applied,
// a begun step without an end becomes a pending operation. The result is
// not yet in dependency order: state.Repair orders it.
func fold(ctx context.Context, base *state.Snapshot, lines []journalLine, c resource.Crypter) (*state.Snapshot, error) {
	snap := &state.Snapshot{}
	if base != nil {
		*snap = *base
		snap.Resources = append([]*state.Resource(nil), base.Resources...)
		snap.PendingOperations = append([]state.PendingOperation(nil), base.PendingOperations...)
	}
	begun := map[int64]decodedEntry{}
	var order []int64
	for n, l := range lines {
		switch EntryKind(l.Kind) {
		case EntryBegin, EntrySuccess, EntryFailure:
		default:
			continue // open, commit
		}
		e, err := decodeLine(ctx, l, c)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		switch EntryKind(e.kind) {
		case EntryBegin:
			begun[e.seq] = e
			order = append(order, e.seq)
		case EntrySuccess:
			b, ok := begun[e.seq]
			if !ok {
				return nil, fmt.Errorf("line %d: step %d ends without having begun", n+1, e.seq)
			}
			delete(begun, e.seq)
			snap.Resources = apply(snap.Resources, e.op, b.old, e.new)
		case EntryFailure:
			delete(begun, e.seq)
		}
	}
	for _, seq := range order {
		if b, ok := begun[seq]; ok && (b.old != nil || b.new != nil) {
			snap.PendingOperations = append(snap.PendingOperations, pending(b))
		}
	}
	return snap, nil
}

func same(a, b *state.Resource) bool {
	return a.URN == b.URN && a.ID == b.ID && a.Delete == b.Delete
}

// apply folds one successful step into the resource list.
func apply(res []*state.Resource, op string, old, new *state.Resource) []*state.Resource {
	switch {
	case op == "create-replacement" && old != nil && new != nil:
		for i, r := range res {
			if same(r, old) {
				c := *r
				c.Delete = true
				res[i] = &c
				break
			}
		}
		return append(res, new)
	case old != nil && new != nil:
		for i, r := range res {
			if same(r, old) {
				res[i] = new
				return res
			}
		}
		return append(res, new)
	case new != nil:
		return append(res, new)
	case old != nil:
		for i, r := range res {
			if same(r, old) {
				return append(res[:i:i], res[i+1:]...)
			}
		}
	}
	return res
}

// pending turns a begun step into a pending operation.
func pending(b decodedEntry) state.PendingOperation {
	switch {
	case b.op == "create" || b.op == "create-replacement" || (b.old == nil && b.new != nil):
		return state.PendingOperation{Resource: b.new, Type: state.OperationCreating}
	case b.new == nil:
		return state.PendingOperation{Resource: b.old, Type: state.OperationDeleting}
	}
	return state.PendingOperation{Resource: b.new, Type: state.OperationUpdating}
}
