package backend

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// HistoryKeep is how many replaced snapshots are kept per (project, stack).
const HistoryKeep = 10

// HistoryEntry is a HistoryRecord as stored in a stack's history file,
// with the project it belongs to.
type HistoryEntry struct {
	Project string `json:"project"`
	HistoryRecord
}

// replaceSnapshot writes data as snapshot.json atomically. The previous
// snapshot (current, nil when none) is kept in the history folder, of which
// the HistoryKeep newest files are kept.
func (f *Folder) replaceSnapshot(p paths, current, data []byte) error {
	if _, err := f.fault(WriteSnapshot, p.snapshot, len(data)); err != nil {
		return fmt.Errorf("saving the state of project %s on stack %s: %w", p.project, p.stack, err)
	}
	if current != nil {
		if err := keepInHistory(p); err != nil {
			return err
		}
	}
	if err := writeFileAtomic(p.snapshot, data); err != nil {
		return fmt.Errorf("saving the state of project %s on stack %s: %w", p.project, p.stack, err)
	}
	return pruneHistory(p)
}

// overwriteSnapshot replaces snapshot.json with data outside an operation
// (import, repair): the snapshot there now goes to the history.
func (f *Folder) overwriteSnapshot(p paths, data []byte) error {
	current, err := readOptional(p.snapshot)
	if err != nil {
		return err
	}
	return f.replaceSnapshot(p, current, data)
}

// keepInHistory links (or, failing that, copies) snapshot.json into the
// history folder under a name sorting by time.
func keepInHistory(p paths) error {
	if err := os.MkdirAll(p.history, 0o755); err != nil {
		return fmt.Errorf("creating the history folder %s: %w", p.history, err)
	}
	stamp := time.Now().UTC().Format("20060102T150405.000000000Z")
	name := filepath.Join(p.history, stamp+".json")
	for i := 1; fileExists(name); i++ {
		name = filepath.Join(p.history, fmt.Sprintf("%s-%d.json", stamp, i))
	}
	if err := os.Link(p.snapshot, name); err != nil {
		data, rerr := boundedfile.ReadFile(p.snapshot, boundedfile.State)
		if rerr != nil {
			return fmt.Errorf("keeping %s in the history: %w", p.snapshot, rerr)
		}
		if err := writeFileAtomic(name, data); err != nil {
			return fmt.Errorf("keeping %s in the history: %w", p.snapshot, err)
		}
	}
	return syncDir(p.history)
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// pruneHistory removes all but the HistoryKeep newest history snapshots.
func pruneHistory(p paths) error {
	names, err := historyFiles(p)
	if err != nil || len(names) <= HistoryKeep {
		return err
	}
	for _, n := range names[:len(names)-HistoryKeep] {
		if err := os.Remove(filepath.Join(p.history, n)); err != nil {
			return fmt.Errorf("pruning the history folder %s: %w", p.history, err)
		}
	}
	return nil
}

// historyFiles lists the history snapshots, oldest first.
func historyFiles(p paths) ([]string, error) {
	entries, err := os.ReadDir(p.history)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the history folder %s: %w", p.history, err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// historyPath is the stack's history file.
func (f *Folder) historyPath(stack string) string {
	return filepath.Join(f.Root, "stacks", stack, "history.jsonl")
}

// appendHistory appends rec, for p's project, to the stack's history file.
func (f *Folder) appendHistory(p paths, rec HistoryRecord) error {
	line, err := json.Marshal(HistoryEntry{Project: p.project, HistoryRecord: rec})
	if err != nil {
		return fmt.Errorf("encoding the history record: %w", err)
	}
	path := f.historyPath(p.stack)
	if _, err := f.fault(WriteHistory, path, len(line)+1); err != nil {
		return fmt.Errorf("recording the history of stack %s: %w", p.stack, err)
	}
	if err := appendSynced(path, append(line, '\n')); err != nil {
		return fmt.Errorf("recording the history of stack %s: %w", p.stack, err)
	}
	return nil
}

// History returns the operations recorded for stack, newest first; with a
// project name, only that project's. A torn last line is ignored.
func (f *Folder) History(_ context.Context, stack, project string) ([]HistoryEntry, error) {
	if err := checkName("stack", stack); err != nil {
		return nil, err
	}
	path := f.historyPath(stack)
	data, err := readOptional(path)
	if err != nil {
		return nil, err
	}
	var out []HistoryEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		var e HistoryEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			if !bytes.HasSuffix(data, []byte("\n")) && n == bytes.Count(data, []byte("\n"))+1 {
				break // torn tail
			}
			return nil, fmt.Errorf("reading the history %s: line %d is not a history record", path, n)
		}
		if project == "" || e.Project == project {
			out = append(out, e)
		}
	}
	for i, k := 0, len(out)-1; i < k; i, k = i+1, k-1 {
		out[i], out[k] = out[k], out[i]
	}
	return out, nil
}
