package backend

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// migration is what moving a folder from runner's old layout writes.
type migration struct {
	f        *Folder
	stacks   map[string]bool
	projects int
	files    []newFile
	// exports maps each new checkpoint file to the export it was made of,
	// sources to that export's file.
	exports map[string][]byte
	sources map[string]string
}

// newFile is one file a migration writes; a lock keeps its modification
// time (the last renewal of its lease).
type newFile struct {
	path  string
	data  []byte
	mtime time.Time
}

func (m *migration) add(path string, data []byte) {
	m.files = append(m.files, newFile{path: path, data: data})
}

// planMigration reads the old folder old and plans the new files. A live
// holder of an old lock refuses it, as does a checkpoint in the new layout
// that no earlier attempt of this migration wrote.
func (f *Folder) planMigration(old string) (*migration, error) {
	m := &migration{f: f, stacks: map[string]bool{}, exports: map[string][]byte{}, sources: map[string]string{}}
	stacks, err := os.ReadDir(old)
	if err != nil {
		return nil, fmt.Errorf("migrating %s: %w", f.Root, err)
	}
	for _, s := range stacks {
		if !s.IsDir() || checkName("stack", s.Name()) != nil {
			continue
		}
		if err := m.planStack(filepath.Join(old, s.Name()), s.Name()); err != nil {
			return nil, err
		}
	}
	if fileExists(f.key(migratingMarker)) {
		return m, nil // an earlier attempt's files may be written over
	}
	for path := range m.exports {
		if fileExists(path) {
			return nil, &UnavailableError{URL: "file://" + f.Root,
				Problem: fmt.Errorf("moving it to Pulumi's layout: both %s (runner's old layout) and %s (Pulumi's) hold that stack", m.sources[path], path),
				Hint:    "move one of the two away, then run again; nothing was changed"}
		}
	}
	return m, nil
}

// planStack plans the files of one stack's old folder dir.
func (m *migration) planStack(dir, stack string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("migrating %s: %w", m.f.Root, err)
	}
	newStack := m.f.key(RunnerStackPrefix(stack))
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir() && checkName("project", e.Name()) == nil:
			if err := m.planProject(path, e.Name(), stack); err != nil {
				return err
			}
		case e.Name() == "lock.json":
			if err := m.planLock(path, filepath.Join(newStack, "lock.json"), "", stack); err != nil {
				return err
			}
		case e.Name() == "tags.json":
			if err := m.copyFile(path, filepath.Join(newStack, "tags.json")); err != nil {
				return err
			}
		case e.Name() == "history.jsonl":
			if err := m.planHistory(path, stack); err != nil {
				return err
			}
		}
	}
	m.stacks[stack] = true
	return nil
}

// planProject plans the files of one project's old folder dir on stack.
func (m *migration) planProject(dir, project, stack string) error {
	newDir := m.f.key(RunnerProjectPrefix(project, stack))
	snapshot, err := readOptional(filepath.Join(dir, "snapshot.json"))
	if err != nil {
		return err
	}
	oldHash, newHash := "", ""
	if snapshot != nil {
		cp, err := spliceCheckpoint(project, stack, snapshot)
		if err != nil {
			return fmt.Errorf("migrating %s: %w; fix or move that file, then run again", filepath.Join(dir, "snapshot.json"), err)
		}
		path := m.f.key(DIYCheckpointKey(project, stack))
		m.add(path, cp)
		m.exports[path] = snapshot
		m.sources[path] = filepath.Join(dir, "snapshot.json")
		oldHash, newHash = hashOf(snapshot), hashOf(cp)
		m.projects++
	}
	journal, err := readOptional(filepath.Join(dir, "journal.jsonl"))
	if err != nil {
		return err
	}
	if journal != nil {
		m.add(filepath.Join(newDir, "journal.jsonl"), rebaseJournal(journal, oldHash, newHash))
		if snapshot == nil {
			m.projects++
		}
	}
	if fileExists(filepath.Join(dir, "lock.json")) {
		if err := m.planLock(filepath.Join(dir, "lock.json"), m.f.key(DIYProjectLockKey(project, stack)), project, stack); err != nil {
			return err
		}
	}
	return m.planReplaced(filepath.Join(dir, "history"), filepath.Join(newDir, "history"), project, stack)
}

// planReplaced plans the copies of the replaced snapshots (as checkpoints)
// and set-aside journals of the old history folder dir.
func (m *migration) planReplaced(dir, newDir, project, stack string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("migrating %s: %w", m.f.Root, err)
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		data, err := readOptional(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		if !strings.HasSuffix(e.Name(), ".journal.jsonl") {
			if cp, err := spliceCheckpoint(project, stack, data); err == nil {
				data = cp
			}
		}
		m.add(filepath.Join(newDir, e.Name()), data)
	}
	return nil
}

// planLock carries an old lock file over, keeping its modification time; a
// live holder refuses the migration.
func (m *migration) planLock(path, newPath, project, stack string) error {
	data, err := readOptional(path)
	if err != nil || data == nil {
		return err
	}
	e := &LockedError{Project: project, Stack: stack, StackWide: project == "", File: path}
	describeHolder(e)
	if !e.Stale {
		return fmt.Errorf("moving %s to Pulumi's layout: %w", m.f.Root, e)
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	m.files = append(m.files, newFile{path: newPath, data: data, mtime: st.ModTime()})
	return nil
}

func (m *migration) copyFile(path, newPath string) error {
	data, err := readOptional(path)
	if err != nil || data == nil {
		return err
	}
	m.add(newPath, data)
	return nil
}

// planHistory turns the stack's history file into Pulumi's update records,
// named by their end times (so that a restarted migration writes the same
// names); a torn last line is dropped.
func (m *migration) planHistory(path, stack string) error {
	data, err := readOptional(path)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e HistoryEntry
		if json.Unmarshal(sc.Bytes(), &e) != nil || (e.Project != "" && checkName("project", e.Project) != nil) {
			continue
		}
		rec, err := EncodeDIYUpdate(e.HistoryRecord)
		if err != nil {
			return err
		}
		at := e.EndTime
		if at.IsZero() {
			at = e.StartTime
		}
		dir := m.f.historyDir(paths{project: e.Project, stack: stack})
		ns := at.UnixNano()
		for used[filepath.Join(dir, DIYHistoryName(stack, ns))] {
			ns++
		}
		name := filepath.Join(dir, DIYHistoryName(stack, ns))
		used[name] = true
		m.add(name, rec)
	}
	return nil
}

// write writes every planned file (atomically, fsynced) and the layout file.
func (m *migration) write() error {
	sort.Slice(m.files, func(i, k int) bool { return m.files[i].path < m.files[k].path })
	for _, nf := range m.files {
		if err := writeFileAtomic(nf.path, nf.data); err != nil {
			return err
		}
		if !nf.mtime.IsZero() {
			if err := os.Chtimes(nf.path, nf.mtime, nf.mtime); err != nil {
				return err
			}
		}
	}
	return m.f.ensureMeta()
}

// verify reads every new file back: each must hold what was written, and
// each checkpoint must hold the deployment of the export it was made of.
func (m *migration) verify() error {
	for _, nf := range m.files {
		if !sameFile(nf.path, nf.data) {
			return fmt.Errorf("%s does not read back as written", nf.path)
		}
	}
	for path, export := range m.exports {
		data, err := readOptional(path)
		if err != nil {
			return err
		}
		var cp checkpointJSON
		var e exportJSON
		if err := json.Unmarshal(data, &cp); err != nil {
			return fmt.Errorf("%s does not read back: %w", path, err)
		}
		if json.Unmarshal(export, &e) != nil || !bytes.Equal(cp.Checkpoint.Latest, e.Deployment) || cp.Version != CheckpointVersion {
			return fmt.Errorf("%s does not hold the deployment of the old snapshot %s", path, m.sources[path])
		}
	}
	return nil
}

// spliceCheckpoint is ToCheckpoint without re-encoding the deployment: its
// bytes are kept as the export has them (one pass over a large state).
func spliceCheckpoint(project, stack string, export []byte) ([]byte, error) {
	var e exportJSON
	if err := json.Unmarshal(export, &e); err != nil {
		return nil, fmt.Errorf("converting the state of project %s on stack %s to a checkpoint: %w", project, stack, err)
	}
	if e.Version != 3 || len(e.Deployment) == 0 || e.Deployment[0] != '{' {
		return nil, fmt.Errorf("converting the state of project %s on stack %s to a checkpoint: it is not a version 3 deployment", project, stack)
	}
	head, _ := json.Marshal(map[string]any{"version": CheckpointVersion, "checkpoint": map[string]string{"stack": "organization/" + project + "/" + stack}})
	// head is {"checkpoint":{"stack":"..."},"version":3}: open its checkpoint
	// object again to add latest.
	i := bytes.Index(head, []byte(`"},"version"`))
	out := make([]byte, 0, len(head)+len(e.Deployment)+16)
	out = append(out, head[:i+1]...)
	out = append(out, `,"latest":`...)
	out = append(out, e.Deployment...)
	out = append(out, head[i+1:]...)
	return append(out, '\n'), nil
}

// rebaseJournal makes a journal that began from the snapshot whose SHA-256
// is from (or was committed to it) name to instead, the same state in the
// new layout's file; other lines are kept byte for byte.
func rebaseJournal(data []byte, from, to string) []byte {
	var out []byte
	rest := data
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return append(out, rest...) // a torn tail, dropped when read
		}
		line := rest[:i+1]
		rest = rest[i+1:]
		var l journalLine
		if (bytes.Contains(line, []byte(`"open"`)) || bytes.Contains(line, []byte(`"commit"`))) && json.Unmarshal(line, &l) == nil &&
			(l.Kind == lineOpen && l.Base == baseName(from) || l.Kind == lineCommit && l.Snapshot == from && from != "") {
			if l.Kind == lineOpen {
				l.Base = baseName(to)
			} else {
				l.Snapshot = to
			}
			if b, err := json.Marshal(l); err == nil {
				line = append(b, '\n')
			}
		}
		out = append(out, line...)
	}
	return out
}
