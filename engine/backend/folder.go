package backend

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
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

	leaseMu sync.Mutex
	lease   time.Duration // 0: LeaseFromEnv
	held    sync.Map      // lock file path → *folderLock this process holds
}

var _ Backend = (*Folder)(nil)

// ErrNotFound is returned (wrapped) when a project has no state on a stack.
var ErrNotFound = errors.New("no state found")

// Open opens the backend at url: "file://<dir>" (absolute or relative) or a
// plain path. The folder is created by the first write, not by Open, so
// that reading a workspace that has no state leaves none behind. Other
// schemes are refused with an error naming them.
func Open(url string) (*Folder, error) {
	dir := url
	if i := strings.Index(url, "://"); i >= 0 {
		scheme := url[:i]
		if scheme != "file" {
			return nil, fmt.Errorf("opening the backend %s: the folder backend serves file:// URLs, not %s://; use file://<folder>", url, scheme)
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
	if st, err := os.Stat(abs); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("opening the backend %s: %s is a file, not a folder", url, abs)
	}
	return &Folder{Root: abs}, nil
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
