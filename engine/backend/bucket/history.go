package bucket

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/backend"
)

// addHistory records rec for (project, stack).
func (s *Store) addHistory(ctx context.Context, project, stack string, rec backend.HistoryRecord) error {
	data, err := backend.EncodeDIYUpdate(rec)
	if err != nil {
		return err
	}
	prefix := historyPrefix(project, stack)
	if project == "" { // the stack's own (a takeover of its lock): runner's only
		prefix = backend.RunnerStackHistoryPrefix(stack)
	}
	key := prefix + backend.DIYHistoryName(stack, time.Now().UnixNano())
	if _, err := s.obj.Put(ctx, key, data, Cond{}); err != nil {
		return fmt.Errorf("recording the history of stack %s: %w", stack, err)
	}
	return nil
}

var _ backend.StackRecorder = (*Store)(nil)

// RecordStackRun records rec, a run across the projects of stack, in the
// stack's own history (runner's, beside Pulumi's per-project records), and
// brings the stack's index of what its checkpoints record of their secrets
// up to date (secretsindex.go).
func (s *Store) RecordStackRun(ctx context.Context, stack string, rec backend.HistoryRecord) error {
	if err := backend.CheckName("stack", stack); err != nil {
		return err
	}
	if err := s.addHistory(ctx, "", stack, rec); err != nil {
		return err
	}
	return s.saveSecretsIndex(ctx, stack)
}

// History returns the operations recorded for stack, newest first; with a
// project, only that project's.
func (s *Store) History(ctx context.Context, stack, project string) ([]backend.HistoryEntry, error) {
	if err := backend.CheckName("stack", stack); err != nil {
		return nil, err
	}
	keys, err := s.historyKeys(ctx, stack, project)
	if err != nil {
		return nil, err
	}
	out := make([]backend.HistoryEntry, 0, len(keys))
	for _, k := range keys {
		e, err := s.readHistory(ctx, k.key, k.project)
		if err != nil {
			return nil, err
		}
		if e != nil {
			out = append(out, *e)
		}
	}
	return out, nil
}

type historyKey struct {
	key, project string
	ns           int64
}

// historyKeys lists the history records of stack (of project, when set;
// else of every project and the stack's own), newest first.
func (s *Store) historyKeys(ctx context.Context, stack, project string) ([]historyKey, error) {
	prefix := ".pulumi/history/"
	if project != "" {
		prefix = historyPrefix(project, stack)
	}
	list, err := s.obj.List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("listing the history of stack %s: %w", stack, err)
	}
	var out []historyKey
	for _, o := range list {
		parts := strings.Split(strings.TrimPrefix(o.Key, ".pulumi/history/"), "/")
		if len(parts) != 3 || parts[1] != stack {
			continue
		}
		if ns, ok := backend.DIYHistoryTime(stack, parts[2]); ok {
			out = append(out, historyKey{key: o.Key, project: parts[0], ns: ns})
		}
	}
	if project == "" {
		own, err := s.stackHistoryKeys(ctx, stack)
		if err != nil {
			return nil, err
		}
		out = append(out, own...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ns > out[j].ns })
	return out, nil
}

// stackHistoryKeys lists the records of the stack's own history, newest
// first.
func (s *Store) stackHistoryKeys(ctx context.Context, stack string) ([]historyKey, error) {
	prefix := backend.RunnerStackHistoryPrefix(stack)
	list, err := s.obj.List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("listing the history of stack %s: %w", stack, err)
	}
	var out []historyKey
	for _, o := range list {
		if ns, ok := backend.DIYHistoryTime(stack, strings.TrimPrefix(o.Key, prefix)); ok {
			out = append(out, historyKey{key: o.Key, ns: ns})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ns > out[j].ns })
	return out, nil
}

func (s *Store) readHistory(ctx context.Context, key, project string) (*backend.HistoryEntry, error) {
	o, err := s.obj.Get(ctx, key)
	if errors.Is(err, ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the history %s/%s: %w", s.obj.Describe(), key, err)
	}
	rec, err := backend.DecodeDIYUpdate(o.Data)
	if err != nil {
		return nil, fmt.Errorf("reading the history %s/%s: %w", s.obj.Describe(), key, err)
	}
	return &backend.HistoryEntry{Project: project, HistoryRecord: rec}, nil
}

// Tags returns the stack's tags.
func (s *Store) Tags(ctx context.Context, stack string) (map[string]string, error) {
	tags, _, err := s.readTags(ctx, stack)
	return tags, err
}

func (s *Store) readTags(ctx context.Context, stack string) (map[string]string, string, error) {
	if err := backend.CheckName("stack", stack); err != nil {
		return nil, "", err
	}
	tags := map[string]string{}
	o, err := s.obj.Get(ctx, tagsKey(stack))
	if errors.Is(err, ErrNotExist) {
		return tags, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading the tags of stack %s: %w", stack, err)
	}
	if err := json.Unmarshal(o.Data, &tags); err != nil {
		return nil, "", fmt.Errorf("reading the tags %s/%s: %w", s.obj.Describe(), tagsKey(stack), err)
	}
	return tags, o.ETag, nil
}

// SetTag sets one tag of the stack.
func (s *Store) SetTag(ctx context.Context, stack, key, value string) error {
	if key == "" {
		return errors.New("a tag needs a name")
	}
	return s.editTags(ctx, stack, func(t map[string]string) { t[key] = value })
}

// RemoveTag removes one tag of the stack.
func (s *Store) RemoveTag(ctx context.Context, stack, key string) error {
	return s.editTags(ctx, stack, func(t map[string]string) { delete(t, key) })
}

// editTags edits the tags object, conditional on what was read (retried
// when another writer got in between).
func (s *Store) editTags(ctx context.Context, stack string, edit func(map[string]string)) error {
	for attempt := 0; ; attempt++ {
		tags, etag, err := s.readTags(ctx, stack)
		if err != nil {
			return err
		}
		edit(tags)
		data, _ := json.MarshalIndent(tags, "", "  ")
		cond := Cond{IfNoneMatch: etag == "", IfMatch: etag}
		_, err = s.obj.Put(ctx, tagsKey(stack), data, cond)
		if errors.Is(err, ErrPrecondition) && attempt < 10 {
			continue
		}
		if err != nil {
			return fmt.Errorf("writing the tags of stack %s: %w", stack, err)
		}
		return nil
	}
}

var _ backend.StackRunReader = (*Store)(nil)

// LastStackRun returns the newest record of the stack's own history: a
// LIST of that folder and a GET of its newest record.
func (s *Store) LastStackRun(ctx context.Context, stack string) (*backend.HistoryEntry, error) {
	if err := backend.CheckName("stack", stack); err != nil {
		return nil, err
	}
	keys, err := s.stackHistoryKeys(ctx, stack)
	if err != nil || len(keys) == 0 {
		return nil, err
	}
	return s.readHistory(ctx, keys[0].key, "")
}
