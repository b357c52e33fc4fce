package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
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
	return stepLine(line), nil
}

// stepLine renders a step's line (kind, seq, op, old, new) as json.Marshal
// renders it, with its newline, without a second pass over its resources:
// MarshalResource's JSON is compact already, and json.Marshal would only
// check and copy it again (a third of encodeEntry's CPU).
func stepLine(l journalLine) []byte {
	buf := make([]byte, 0, 64+len(l.Old)+len(l.New))
	buf = append(buf, `{"kind":`...)
	buf = appendJSONString(buf, l.Kind)
	if l.Seq != 0 {
		buf = append(buf, `,"seq":`...)
		buf = strconv.AppendInt(buf, l.Seq, 10)
	}
	if l.Op != "" {
		buf = append(buf, `,"op":`...)
		buf = appendJSONString(buf, l.Op)
	}
	if len(l.Old) > 0 {
		buf = append(append(buf, `,"old":`...), l.Old...)
	}
	if len(l.New) > 0 {
		buf = append(append(buf, `,"new":`...), l.New...)
	}
	return append(buf, '}', '\n')
}

// appendJSONString appends s as json.Marshal renders a string: as it is,
// quoted, when it holds nothing json.Marshal escapes (a kind or an op).
func appendJSONString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(buf, q...)
		}
	}
	return append(append(append(buf, '"'), s...), '"')
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

// decodeLine decodes a step line's resources into an Entry.
func decodeLine(ctx context.Context, l journalLine, c resource.Crypter) (Entry, error) {
	e := Entry{Kind: EntryKind(l.Kind), Seq: l.Seq, Op: l.Op}
	var err error
	if len(l.Old) > 0 {
		if e.Old, err = state.UnmarshalResource(ctx, l.Old, c); err != nil {
			return e, err
		}
	}
	if len(l.New) > 0 {
		if e.New, err = state.UnmarshalResource(ctx, l.New, c); err != nil {
			return e, err
		}
	}
	return e, nil
}

// fold decodes the journal's step lines and folds them into base (see
// Fold); an error names the line.
func fold(ctx context.Context, base *state.Snapshot, lines []journalLine, c resource.Crypter) (*state.Snapshot, error) {
	entries := make([]Entry, 0, len(lines))
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
		entries = append(entries, e)
	}
	return Fold(base, entries)
}
