package backend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// A folder that runner's older versions wrote keeps everything under
// <root>/stacks/<stack>/ (snapshot.json as an export, journal.jsonl,
// lock.json, history/, history.jsonl, tags.json). The first use of such a
// folder moves it to Pulumi's DIY layout, once, safe against a kill at any
// moment:
//
//  1. under the migration lock (.runner/migrate.lock.json; a killed
//     migrator's is taken over, a running one's waited for), the old
//     files are read and checked: a live holder of an old lock refuses
//     the migration (exit 4), and a checkpoint already in the new layout
//     that no earlier attempt wrote refuses it (exit 3), nothing changed;
//  2. .runner/migrating.json says an attempt is under way (its files may
//     be written over by the next attempt);
//  3. every new file is written (temporary file, fsync, rename, fsync of
//     the folder) and read back and compared;
//  4. the marker .runner/layout.json is written atomically: from then on
//     the new files are the state;
//  5. the old folder moves to .runner/old-layout/ (kept for the user to
//     remove), and one message says so on standard error.
//
// Every runner process reads the folder only after ready(), which migrates
// or waits for the migration, so nobody reads a mix of the two. A killed
// attempt leaves the old files as they were (before 4) or a finished
// migration (after 4); the next run restarts or finishes it.

// layoutMarker says that the old layout was migrated and verified.
const (
	layoutMarker    = ".runner/layout.json"
	migratingMarker = ".runner/migrating.json"
	migrateLock     = ".runner/migrate.lock.json"
	oldLayoutDir    = ".runner/old-layout"
)

// migrateWait bounds the wait for another process's migration.
const migrateWait = 10 * time.Minute

// migrate migrates the folder from runner's old layout, if it is in it.
func (f *Folder) migrate() error {
	old := filepath.Join(f.Root, "stacks")
	if !isOldLayout(old) {
		return nil
	}
	if fileExists(f.key(layoutMarker)) {
		return f.retireOld(nil)
	}
	lock, err := f.takeMigrationLock()
	if err != nil || lock == nil {
		return err // lock nil: another process migrated meanwhile
	}
	defer lock.Unlock()
	if fileExists(f.key(layoutMarker)) {
		return f.retireOld(nil)
	}
	plan, err := f.planMigration(old)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(f.key(migratingMarker), []byte(`{"from": "runner's folder layout (stacks/)"}`+"\n")); err != nil {
		return fmt.Errorf("migrating %s: %w", f.Root, err)
	}
	if err := plan.write(); err != nil {
		return fmt.Errorf("migrating %s to Pulumi's layout (nothing was lost: the old files are as they were; run again): %w", f.Root, err)
	}
	if err := plan.verify(); err != nil {
		return fmt.Errorf("migrating %s to Pulumi's layout (nothing was lost: the old files are as they were; run again): %w", f.Root, err)
	}
	marker := fmt.Sprintf(`{"layout": "pulumi-diy-project", "migrated": %q}`+"\n", time.Now().UTC().Format(time.RFC3339))
	if err := writeFileAtomic(f.key(layoutMarker), []byte(marker)); err != nil {
		return fmt.Errorf("migrating %s: %w", f.Root, err)
	}
	_ = os.Remove(f.key(migratingMarker))
	return f.retireOld(plan)
}

// takeMigrationLock takes the migration lock, waiting while another
// process migrates; nil when that process finished meanwhile.
func (f *Folder) takeMigrationLock() (*folderLock, error) {
	path := f.key(migrateLock)
	deadline := time.Now().Add(migrateWait)
	for {
		l, err := f.takeLock(context.Background(), filepath.Dir(path), path, CurrentLockInfo("runner (moving the state to Pulumi's layout)"),
			func() error {
				e := &LockedError{Stack: "(every stack)", StackWide: true, File: path}
				describeHolder(e)
				return e
			})
		var locked *LockedError
		if !errors.As(err, &locked) || locked.Stale || time.Now().After(deadline) {
			if err != nil {
				return nil, fmt.Errorf("migrating %s to Pulumi's layout: %w", f.Root, err)
			}
			return l, nil
		}
		time.Sleep(100 * time.Millisecond)
		if fileExists(f.key(layoutMarker)) {
			return nil, f.retireOld(nil)
		}
	}
}

// retireOld moves the old folder to .runner/old-layout and says so, once:
// only the process whose rename succeeds says it.
func (f *Folder) retireOld(plan *migration) error {
	old := filepath.Join(f.Root, "stacks")
	dest := f.key(oldLayoutDir)
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return fmt.Errorf("migrating %s: %w", f.Root, err)
	}
	target := filepath.Join(dest, "stacks")
	if fileExists(target) {
		target += "-" + time.Now().UTC().Format("20060102T150405Z")
	}
	if err := os.Rename(old, target); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // another process retired it
		}
		return fmt.Errorf("migrating %s: moving the old files away: %w", f.Root, err)
	}
	if err := syncDir(f.Root); err != nil {
		return err
	}
	what := "its stacks"
	if plan != nil {
		what = fmt.Sprintf("%d stacks, %d projects", len(plan.stacks), plan.projects)
	}
	w := f.Notices
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintf(w, "runner: moved the state in %s to Pulumi's DIY layout (%s), so `pulumi login file://%s` reads it; the old files are kept in %s until you remove them\n",
		f.Root, what, f.Root, target)
	return nil
}

// isOldLayout reports whether old is a folder of runner's old layout: a
// stack folder in it holds one of the files runner kept there (a folder
// named stacks that runner did not write is left alone).
func isOldLayout(old string) bool {
	for _, pattern := range []string{"*/*/snapshot.json", "*/*/journal.jsonl", "*/*/lock.json", "*/history.jsonl", "*/tags.json", "*/lock.json"} {
		if found, _ := filepath.Glob(filepath.Join(old, pattern)); len(found) > 0 {
			return true
		}
	}
	return false
}

// sameFile reports whether path holds exactly data.
func sameFile(path string, data []byte) bool {
	got, err := readOptional(path)
	return err == nil && got != nil && bytes.Equal(got, data)
}
