package backend

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
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

	// Notices receives the one message of a migration of the folder from
	// runner's old layout (migrate.go); nil: standard error.
	Notices io.Writer

	tagsMu sync.Mutex

	readyMu   sync.Mutex
	readyDone atomic.Bool

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

// paths names the files of one (project, stack) in Pulumi's DIY layout
// (diylayout.go).
type paths struct {
	project, stack string
	stackDir       string // runner's folder of the stack (stack lock, tags)
	dir            string // runner's folder of the project on the stack (journal, history)
	snapshot       string // the checkpoint (.json, or .json.gz where that is what is there)
	journal        string
	lock           string // runner.json in Pulumi's lock folder
	history        string // folder of replaced checkpoints
}

func (f *Folder) paths(project, stack string) (paths, error) {
	if err := checkName("project", project); err != nil {
		return paths{}, err
	}
	if err := f.checkStack(stack); err != nil {
		return paths{}, err
	}
	dir := f.key(RunnerProjectPrefix(project, stack))
	return paths{
		project: project, stack: stack, stackDir: f.stackDir(stack), dir: dir,
		snapshot: f.checkpointPath(project, stack),
		journal:  filepath.Join(dir, "journal.jsonl"),
		lock:     f.key(DIYProjectLockKey(project, stack)),
		history:  filepath.Join(dir, "history"),
	}, nil
}

// key is the file of a layout key.
func (f *Folder) key(key string) string { return filepath.Join(f.Root, filepath.FromSlash(key)) }

// checkStack refuses a stack name that cannot name a file, and brings the
// folder to the current layout first (migrate.go).
func (f *Folder) checkStack(stack string) error {
	if err := checkName("stack", stack); err != nil {
		return err
	}
	return f.ready()
}
