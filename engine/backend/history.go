package backend

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
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

// replaceSnapshot writes data as the checkpoint atomically. The previous
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
		if err := backUp(p.snapshot); err != nil {
			return err
		}
	} else if err := f.ensureMeta(); err != nil {
		return err
	}
	if err := writeFileAtomic(p.snapshot, data); err != nil {
		return fmt.Errorf("saving the state of project %s on stack %s: %w", p.project, p.stack, err)
	}
	return pruneHistory(p)
}

// overwriteSnapshot replaces the checkpoint with data outside an operation
// (import, repair): the snapshot there now goes to the history.
func (f *Folder) overwriteSnapshot(p paths, data []byte) error {
	current, err := readOptional(p.snapshot)
	if err != nil {
		return err
	}
	return f.replaceSnapshot(p, current, data)
}

// keepInHistory links (or, failing that, copies) the checkpoint into the
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

// backUp makes path's <path>.bak the file path is now, as Pulumi keeps
// it (a hard link, else a copy, replacing the previous backup atomically).
func backUp(path string) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".bak.tmp-"+newLockID())
	if err := os.Link(path, tmp); err != nil {
		data, rerr := boundedfile.ReadFile(path, boundedfile.State)
		if rerr != nil {
			return fmt.Errorf("backing up %s: %w", path, rerr)
		}
		return writeFileAtomic(path+".bak", data)
	}
	if err := os.Rename(tmp, path+".bak"); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("backing up %s: %w", path, err)
	}
	return nil
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

// historyDir is the folder of the update records of p's project on p's
// stack (the stack's own records when p names no project).
func (f *Folder) historyDir(p paths) string {
	if p.project == "" {
		return f.key(RunnerStackHistoryPrefix(p.stack))
	}
	return f.key(DIYHistoryPrefix(p.project, p.stack))
}

// appendHistory records rec, for p's project, as Pulumi's update record
// (written atomically, under a name no other record of the folder has).
func (f *Folder) appendHistory(p paths, rec HistoryRecord) error {
	data, err := EncodeDIYUpdate(rec)
	if err != nil {
		return err
	}
	dir := f.historyDir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("recording the history of stack %s: %w", p.stack, err)
	}
	ns := time.Now().UnixNano()
	path := filepath.Join(dir, DIYHistoryName(p.stack, ns))
	for fileExists(path) {
		ns++
		path = filepath.Join(dir, DIYHistoryName(p.stack, ns))
	}
	if _, err := f.fault(WriteHistory, path, len(data)); err != nil {
		return fmt.Errorf("recording the history of stack %s: %w", p.stack, err)
	}
	if err := writeFileAtomic(path, data); err != nil {
		return fmt.Errorf("recording the history of stack %s: %w", p.stack, err)
	}
	return nil
}

// History returns the operations recorded for stack, newest first; with a
// project name, only that project's.
func (f *Folder) History(ctx context.Context, stack, project string) ([]HistoryEntry, error) {
	if err := f.checkStack(stack); err != nil {
		return nil, err
	}
	dirs := map[string]string{} // folder → project
	if project != "" {
		dirs[f.key(DIYHistoryPrefix(project, stack))] = project
	} else {
		found, _ := filepath.Glob(filepath.Join(f.key(".pulumi/history"), "*", stack))
		for _, d := range found {
			dirs[d] = filepath.Base(filepath.Dir(d))
		}
		dirs[f.key(RunnerStackHistoryPrefix(stack))] = ""
	}
	records, err := historyRecordFiles(stack, dirs)
	if err != nil {
		return nil, err
	}
	out := make([]HistoryEntry, 0, len(records))
	for _, r := range records {
		e, err := readHistoryFile(r)
		if err != nil {
			return nil, err
		}
		if e != nil {
			out = append(out, *e)
		}
	}
	return out, nil
}

// historyFile is an update record's file in a folder, and the project
// whose history it is ("" for the stack's own).
type historyFile struct {
	path, project string
	ns            int64
}

// historyRecordFiles lists the history records of stack in dirs (folder →
// project; a missing folder holds none), newest first.
func historyRecordFiles(stack string, dirs map[string]string) ([]historyFile, error) {
	var records []historyFile
	for dir, proj := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reading the history of stack %s: %w", stack, err)
		}
		for _, e := range entries {
			if ns, ok := DIYHistoryTime(stack, e.Name()); ok {
				records = append(records, historyFile{path: filepath.Join(dir, e.Name()), project: proj, ns: ns})
			}
		}
	}
	sort.Slice(records, func(i, k int) bool { return records[i].ns > records[k].ns })
	return records, nil
}

// readHistoryFile reads one record (nil when it was removed meanwhile).
func readHistoryFile(r historyFile) (*HistoryEntry, error) {
	data, err := readOptional(r.path)
	if err != nil || data == nil {
		return nil, err
	}
	rec, err := DecodeDIYUpdate(data)
	if err != nil {
		return nil, fmt.Errorf("reading the history record %s: %w", r.path, err)
	}
	return &HistoryEntry{Project: r.project, HistoryRecord: rec}, nil
}
