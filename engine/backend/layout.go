package backend

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ready brings the folder to Pulumi's DIY layout once per Folder: a folder
// in runner's old layout is migrated (migrate.go), and a folder whose
// .pulumi/meta.yaml names another layout than Pulumi's project layout, or
// that holds stacks in Pulumi's legacy layout, is refused. A failure is
// tried again on the next call.
func (f *Folder) ready() error {
	if f.readyDone.Load() {
		return nil
	}
	f.readyMu.Lock()
	defer f.readyMu.Unlock()
	if f.readyDone.Load() {
		return nil
	}
	if err := f.migrate(); err != nil {
		return err
	}
	if err := f.checkLayout(); err != nil {
		return err
	}
	f.readyDone.Store(true)
	return nil
}

// checkLayout refuses a folder runner cannot keep in Pulumi's project
// layout (version 1).
func (f *Folder) checkLayout() error {
	meta := f.key(DIYMetaKey)
	data, err := readOptional(meta)
	if err != nil {
		return err
	}
	if data != nil {
		version, err := ParseDIYMeta(data)
		hint := "use another folder for runner's state; nothing was changed"
		switch {
		case err != nil: // emptied or hand-edited: the folder's stacks say which layout it is
			hint = fmt.Sprintf("if the stacks in %s are grouped by project (Pulumi's project layout), write %q into %s; otherwise %s",
				f.key(".pulumi/stacks"), strings.TrimSpace(DIYMeta), meta, hint)
		case version == 0:
			err = fmt.Errorf("it names layout version 0")
			hint = "upgrade it with `pulumi state upgrade`, then run again; nothing was changed"
		case version != 1:
			err = fmt.Errorf("it names layout version %d", version)
		}
		if err != nil {
			return &UnavailableError{URL: "file://" + f.Root, Problem: fmt.Errorf("%s: %w, and runner keeps Pulumi's project layout, version 1", meta, err),
				Hint: hint}
		}
		return nil
	}
	entries, err := os.ReadDir(f.key(".pulumi/stacks"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checking the layout of %s: %w", f.Root, err)
	}
	for _, e := range entries {
		if _, ok := checkpointStack(e.Name()); ok && !e.IsDir() {
			return &UnavailableError{URL: "file://" + f.Root, Problem: fmt.Errorf("%s holds stacks in Pulumi's legacy layout (not grouped by project)", filepath.Join(f.Root, ".pulumi", "stacks")),
				Hint: "upgrade it with `pulumi state upgrade`, then run again; nothing was changed"}
		}
	}
	return nil
}

// ensureMeta writes .pulumi/meta.yaml (Pulumi's project layout, version 1)
// unless it is there, before the first checkpoint of the folder.
func (f *Folder) ensureMeta() error {
	meta := f.key(DIYMetaKey)
	if fileExists(meta) {
		return nil
	}
	if err := writeFileAtomic(meta, []byte(DIYMeta)); err != nil {
		return fmt.Errorf("writing the layout file of %s: %w", f.Root, err)
	}
	return nil
}

// isJSONName reports whether name is a file runner reads as JSON (not a
// temporary file, a backup or gocloud's .attrs).
func isJSONName(name string) bool {
	return !strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".json")
}
