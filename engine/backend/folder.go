package backend

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/runnerhq/runner/engine/state"
)

// Folder is the folder backend: state, journals, locks, history and tags in
// files under Root (see the package documentation for the layout). It is
// safe for concurrent use.
type Folder struct {
	// Root is the backend's folder (absolute).
	Root string
	// Faults, when set, can fail any state write (tests); nil in normal use.
	Faults Faults

	tagsMu sync.Mutex
	mu     sync.Mutex
	loaded map[string]loadMemo // by project+"\x00"+stack: what the last Load returned
}

// loadMemo remembers what Load returned, so that OpenJournal knows whether
// its base is exactly the snapshot on disk.
type loadMemo struct {
	snap  *state.Snapshot
	clean bool   // snap is exactly what snapshot.json holds (no journal was folded in)
	hash  string // the SHA-256 of snapshot.json ("" when there was none)
}

var _ Backend = (*Folder)(nil)

// ErrNotFound is returned (wrapped) when a project has no state on a stack.
var ErrNotFound = errors.New("no state found")

// Open opens the backend at url: "file://<dir>" (absolute or relative) or a
// plain path. The folder is created when missing. Other schemes are refused
// with an error naming them.
func Open(url string) (*Folder, error) {
	dir := url
	if i := strings.Index(url, "://"); i >= 0 {
		scheme := url[:i]
		if scheme != "file" {
			return nil, fmt.Errorf("opening the backend %s: the %s backend is not available yet; use file://<folder>", url, scheme)
		}
		dir = url[i+3:]
	}
	if dir == "" {
		return nil, fmt.Errorf("opening the backend %q: no folder given; use file://<folder>", url)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("opening the backend %s: %w", url, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("opening the backend %s: creating its folder: %w", url, err)
	}
	return &Folder{Root: abs, loaded: map[string]loadMemo{}}, nil
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

func checkName(kind, name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("%s name %q is not valid: use letters, digits, '_', '.' and '-', not starting with '.' or '-'", kind, name)
	}
	return nil
}

// paths names the files of one (project, stack).
type paths struct {
	project, stack string
	stackDir       string
	dir            string
	snapshot       string
	journal        string
	lock           string
	history        string // folder of old snapshots
}

func (f *Folder) paths(project, stack string) (paths, error) {
	if err := checkName("project", project); err != nil {
		return paths{}, err
	}
	if err := checkName("stack", stack); err != nil {
		return paths{}, err
	}
	stackDir := filepath.Join(f.Root, "stacks", stack)
	dir := filepath.Join(stackDir, project)
	return paths{
		project: project, stack: stack, stackDir: stackDir, dir: dir,
		snapshot: filepath.Join(dir, "snapshot.json"),
		journal:  filepath.Join(dir, "journal.jsonl"),
		lock:     filepath.Join(dir, "lock.json"),
		history:  filepath.Join(dir, "history"),
	}, nil
}

func memoKey(project, stack string) string { return project + "\x00" + stack }

func (f *Folder) remember(project, stack string, m loadMemo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loaded == nil {
		f.loaded = map[string]loadMemo{}
	}
	f.loaded[memoKey(project, stack)] = m
}

func (f *Folder) memo(project, stack string) (loadMemo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.loaded[memoKey(project, stack)]
	return m, ok
}
