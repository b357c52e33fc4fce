package backend

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// PulumiLock is a lock file the Pulumi CLI wrote in Pulumi's lock folder of
// a project's stack (.pulumi/locks/organization/<project>/<stack>/<id>.json):
// Pulumi removes it when its command ends, so one that stays was left by a
// Pulumi CLI that was killed, or that still runs.
type PulumiLock struct {
	Project, Stack string
	// Key is the file's key, relative to the backend's root.
	Key string
	// File names the file for a person: a path, or the bucket and key.
	File string
	// Holder is what the file says of the Pulumi CLI that wrote it; its
	// liveness is judged as a runner holder's (Stale), but Pulumi's files
	// carry no lease, so only a process of this host that no longer runs
	// makes one stale.
	Holder LockInfo
}

// PulumiLockKeeper lists and removes the Pulumi CLI's lock files, for
// `runner stack unlock`. The backends that keep Pulumi's DIY layout (the
// folder, buckets) implement it; PostgreSQL keeps runner's own schema,
// which no Pulumi CLI writes, and has no such files.
type PulumiLockKeeper interface {
	// PulumiLocks returns, sorted by key, the lock files other than
	// runner's in Pulumi's lock folders of stack: of every project, or of
	// project only when it is not "".
	PulumiLocks(ctx context.Context, stack, project string) ([]PulumiLock, error)
	// RemovePulumiLock removes one of them; removing one already gone
	// succeeds.
	RemovePulumiLock(ctx context.Context, l PulumiLock) error
}

// IsPulumiLockName reports whether name, a file of a Pulumi lock folder, is
// a lock the Pulumi CLI wrote: a .json file that is not runner's own
// (runner.json), a temporary file (.name) or gocloud's .attrs beside one.
func IsPulumiLockName(name string) bool {
	return strings.HasSuffix(name, ".json") && name != path.Base(DIYProjectLockKey("p", "s")) && !strings.HasPrefix(name, ".")
}

// PulumiLockOf splits the key of a file under .pulumi/locks/organization/
// into the lock it is, and reports whether it is a Pulumi CLI's lock of
// stack (of project, unless project is "").
func PulumiLockOf(key, stack, project string) (PulumiLock, bool) {
	rest, ok := strings.CutPrefix(key, ".pulumi/locks/organization/")
	parts := strings.Split(rest, "/")
	if !ok || len(parts) != 3 || parts[1] != stack || project != "" && parts[0] != project ||
		checkName("project", parts[0]) != nil || !IsPulumiLockName(parts[2]) {
		return PulumiLock{}, false
	}
	return PulumiLock{Project: parts[0], Stack: stack, Key: key}, true
}

// PulumiLocks returns the Pulumi CLI's lock files of stack in the folder.
func (f *Folder) PulumiLocks(_ context.Context, stack, project string) ([]PulumiLock, error) {
	if err := f.checkStack(stack); err != nil {
		return nil, err
	}
	dirs := "*"
	if project != "" {
		if err := checkName("project", project); err != nil {
			return nil, err
		}
		dirs = project
	}
	found, err := filepath.Glob(filepath.Join(f.key(".pulumi/locks/organization"), dirs, stack, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []PulumiLock
	for _, file := range found { // Glob sorts
		rel, err := filepath.Rel(f.Root, file)
		if err != nil {
			return nil, err
		}
		l, ok := PulumiLockOf(filepath.ToSlash(rel), stack, project)
		if !ok {
			continue
		}
		h, err := readHolder(file)
		switch {
		case err != nil: // cleared only with --force
			h = &LockInfo{Command: "an unreadable holder (" + err.Error() + ")"}
		case h == nil:
			continue // removed meanwhile
		}
		l.File, l.Holder = file, *h
		out = append(out, l)
	}
	return out, nil
}

// RemovePulumiLock removes a Pulumi CLI's lock file from the folder.
func (f *Folder) RemovePulumiLock(_ context.Context, l PulumiLock) error {
	if _, ok := PulumiLockOf(l.Key, l.Stack, l.Project); !ok {
		return fmt.Errorf("%s is not a lock file of the Pulumi CLI", l.Key)
	}
	return clearLock(f.key(l.Key), "stack "+l.Stack+" of project "+l.Project+" (the Pulumi CLI's "+l.Key+")")
}

var _ PulumiLockKeeper = (*Folder)(nil)
