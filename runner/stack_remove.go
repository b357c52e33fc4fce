package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/atomicfile"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/internal/boundedfile"
	"github.com/runnerhq/runner/runner/prompt"
)

// TrashDir is where `stack rm` moves a removed stack, under the workspace.
const TrashDir = ".runner/trash"

// removal is what `stack rm` takes out of the workspace and the backend,
// read before anything is removed.
type removal struct {
	stack    string
	cfgPath  string // the stack config ("" when there is none)
	keepCfg  bool   // --preserve-config
	exports  map[string][]byte
	projects []string
	tags     map[string]string
	history  []backend.HistoryEntry
	selected bool // the environment file pins the stack
}

// Remove removes stack: its config file (unless preserveConfig) and the
// state of every project (refused while any still has resources, unless
// force). Nothing is destroyed: the config, each project's state as `stack
// export` gives it, the tags and the history move to a new folder under
// TrashDir, with a RESTORE.txt that gives the commands that put the stack
// back. The config moves before any state goes; if it cannot, nothing is
// removed. An
// environment file that pins the stack no longer does. It returns the
// trash folder and warnings to show.
func (s *Stacks) Remove(ctx context.Context, stack string, force, preserveConfig bool) (string, []string, error) {
	if !config.ValidStackName(stack) {
		return "", nil, Usage(fmt.Errorf("%q is not a valid stack name: %s", stack, config.StackNameRule))
	}
	unlock, err := s.lockStack(ctx, stack, "runner stack rm", "removing stack "+stack)
	if err != nil {
		return "", nil, err
	}
	defer unlock()
	r, warnings, err := s.readRemoval(ctx, stack, force, preserveConfig)
	if err != nil {
		return "", warnings, err
	}
	trash, err := makeTrash(s.Workspace, stack)
	if err != nil {
		return "", warnings, err
	}
	if err := r.writeTrash(s, trash); err != nil {
		os.RemoveAll(trash) // this run's own folder: nothing was removed yet
		return "", warnings, fmt.Errorf("%w; nothing was removed", err)
	}
	if err := r.moveConfig(trash); err != nil {
		os.RemoveAll(trash)
		return "", warnings, err
	}
	for k := range r.tags { // before the state: the last project removed may take the stack's folder
		if err := s.backend.RemoveTag(ctx, stack, k); err != nil {
			return trash, warnings, fmt.Errorf("%w; what was removed is in %s", err, trash)
		}
	}
	for _, p := range r.projects {
		if err := s.backend.RemoveStack(ctx, p, stack, true); err != nil {
			return trash, warnings, fmt.Errorf("%w; what was removed is in %s", err, trash)
		}
	}
	if r.selected {
		if err := s.Env.UnsetStack(stack); err != nil {
			return trash, warnings, fmt.Errorf("stack %s was removed (it is in %s), but the environment file still selects it: %w", stack, trash, err)
		}
		s.Selected = ""
	}
	return trash, warnings, nil
}

// readRemoval reads everything `stack rm` moves, and refuses (exit 3)
// while resources remain, unless force, or while a project's state cannot
// be exported whole (an interrupted operation's journal).
func (s *Stacks) readRemoval(ctx context.Context, stack string, force, preserveConfig bool) (*removal, []string, error) {
	r := &removal{stack: stack, keepCfg: preserveConfig, exports: map[string][]byte{}, selected: s.Selected == stack}
	cfgPath := StackConfigPath(s.Workspace, stack)
	if _, err := os.Lstat(cfgPath); err == nil {
		r.cfgPath = cfgPath
	}
	projects, err := s.backend.Projects(ctx, stack)
	if err != nil {
		return nil, nil, err
	}
	if len(projects) == 0 && r.cfgPath == "" {
		return nil, nil, Invalid(fmt.Errorf("there is no stack %s in this workspace (no %s and no state)", stack, cfgPath))
	}
	var busy, interrupted, warnings []string
	for _, p := range projects {
		// A project another command works on is refused before anything
		// moves (a lock its holder left behind is taken over on removal).
		if h, err := s.backend.LockHolder(ctx, p, stack); err != nil || h != nil && !h.Stale() {
			if err == nil {
				err = &backend.LockedError{Project: p, Stack: stack, Holder: *h}
			}
			return nil, nil, fmt.Errorf("removing stack %s: %w; nothing was removed", stack, err)
		}
		sum, err := s.backend.Summary(ctx, p, stack)
		if err != nil && !errors.Is(err, backend.ErrNotFound) {
			return nil, nil, err
		}
		if n := managed(sum); n > 0 {
			busy = append(busy, fmt.Sprintf("%s (%d resources)", p, n))
		}
		if sum.Interrupted {
			interrupted = append(interrupted, p)
		}
	}
	if len(interrupted) > 0 {
		return nil, nil, Invalid(fmt.Errorf("stack %s has interrupted operations in %s, whose journals an export would leave out; run `runner --stack %s refresh` (or `destroy`) first, then remove it",
			stack, strings.Join(interrupted, ", "), stack))
	}
	if len(busy) > 0 && !force {
		return nil, nil, Invalid(fmt.Errorf("stack %s still has resources in %s; run `runner --stack %s destroy` first, or pass --force to remove the stack anyway (its state is kept in %s)",
			stack, strings.Join(busy, ", "), stack, TrashDir))
	}
	if len(busy) > 0 {
		warnings = append(warnings, fmt.Sprintf("removing stack %s while it still has resources in %s: the resources are left running; the state that knows them is kept in the trash", stack, strings.Join(busy, ", ")))
	}
	for _, p := range projects {
		data, err := s.backend.Export(ctx, p, stack)
		if err != nil && !errors.Is(err, backend.ErrNotFound) {
			return nil, warnings, fmt.Errorf("removing stack %s: exporting project %s: %w; nothing was removed", stack, p, err)
		}
		if data != nil {
			r.exports[p] = data
		}
		r.projects = append(r.projects, p)
	}
	if r.tags, err = s.backend.Tags(ctx, stack); err != nil {
		return nil, warnings, err
	}
	if r.history, err = s.backend.History(ctx, stack, ""); err != nil {
		return nil, warnings, err
	}
	return r, warnings, nil
}

// makeTrash creates a new folder for stack under the workspace's trash:
// <stack>-<UTC time>, with -2, -3, ... when one of that second exists. An
// earlier trash is never reused.
func makeTrash(workspace, stack string) (string, error) {
	root := filepath.Join(workspace, TrashDir)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("creating the trash folder %s: %w; nothing was removed", root, err)
	}
	base := filepath.Join(root, stack+"-"+time.Now().UTC().Format("20060102T150405Z"))
	name := base
	for n := 2; ; n++ {
		err := os.Mkdir(name, 0o700)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("creating the trash folder %s: %w; nothing was removed", name, err)
		}
		name = fmt.Sprintf("%s-%d", base, n)
	}
}

// configName is the stack config's name in a trash folder.
func (r *removal) configName() string { return "Pulumi." + r.stack + ".yaml" }

// moveConfig moves the stack config into trash (a symlink's target is
// copied, the link removed, so that nothing in the trash points back). With
// --preserve-config it is copied and stays.
func (r *removal) moveConfig(trash string) error {
	if r.cfgPath == "" {
		return nil
	}
	dest := filepath.Join(trash, r.configName())
	st, err := os.Lstat(r.cfgPath)
	if err != nil {
		return fmt.Errorf("moving %s to %s: %w; nothing was removed", r.cfgPath, trash, err)
	}
	if st.Mode().IsRegular() && !r.keepCfg {
		err = config.MoveStack(r.cfgPath, dest)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EXDEV) {
			return fmt.Errorf("moving %s to %s: %w; nothing was removed", r.cfgPath, trash, err)
		}
	}
	data, err := boundedfile.ReadFile(r.cfgPath, boundedfile.StackConfig)
	if err != nil {
		return fmt.Errorf("moving %s to %s: %w; nothing was removed", r.cfgPath, trash, err)
	}
	if err := atomicfile.Write(dest, data, 0o600); err != nil {
		return fmt.Errorf("moving %s to %s: %w; nothing was removed", r.cfgPath, trash, err)
	}
	if r.keepCfg {
		return nil
	}
	if err := config.RemoveStack(r.cfgPath); err != nil {
		return fmt.Errorf("%w; nothing was removed (a copy is in %s)", err, trash)
	}
	return nil
}

// writeTrash writes, durably, each project's export, the tags, the history
// and RESTORE.txt into trash.
func (r *removal) writeTrash(s *Stacks, trash string) error {
	write := func(name string, data []byte) error {
		if err := atomicfile.Write(filepath.Join(trash, name), data, 0o600); err != nil {
			return fmt.Errorf("writing the trash %s: %w", trash, err)
		}
		return nil
	}
	if err := os.Mkdir(filepath.Join(trash, "state"), 0o700); err != nil {
		return fmt.Errorf("writing the trash %s: %w", trash, err)
	}
	for p, data := range r.exports {
		if err := write(filepath.Join("state", p+".json"), data); err != nil {
			return err
		}
	}
	for name, v := range map[string]any{"tags.json": r.tags, "history.json": r.history} {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		if err := write(name, append(data, '\n')); err != nil {
			return err
		}
	}
	if err := write("RESTORE.txt", []byte(r.restoreText(s, trash))); err != nil {
		return err
	}
	return atomicfile.SyncDir(trash)
}

// StackRemoveOptions are the flags of `runner stack rm NAME`.
type StackRemoveOptions struct {
	Name           string
	Force          bool // remove the stack even though resources remain
	PreserveConfig bool // keep the stack's config file
	Yes            bool // do not ask (required without a terminal)
}

// StackRemoved is what `stack rm --json` prints: the sentence, the
// folder of the trash that holds the stack and the script that puts it
// back (both absolute).
type StackRemoved struct {
	Type    string `json:"type"` // "result"
	Message string `json:"message"`
	Stack   string `json:"stack"`
	Trash   string `json:"trash"`
	Restore string `json:"restore"`
}

// StackRemove is `runner stack rm`: on a terminal the user types the
// stack's name to confirm (as Pulumi asks); without one, Yes is required.
// Its warnings go to the error stream; it prints the sentence that says
// where the stack went (with --json, a StackRemoved).
func StackRemove(ctx context.Context, opts Options, o StackRemoveOptions) error {
	s, err := OpenStacks(opts)
	if err != nil {
		return err
	}
	if err := s.confirmRemove(o); err != nil {
		return err
	}
	trash, warnings, err := s.Remove(ctx, o.Name, o.Force, o.PreserveConfig)
	for _, w := range warnings {
		fmt.Fprintf(s.IO().Err, "warning: %s\n", w)
	}
	if err != nil {
		return err
	}
	rel := trash // as the user runs it: from the current folder, which --root may not be
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, trash); err == nil && filepath.IsLocal(r) {
			rel = r
		}
	}
	msg := fmt.Sprintf("Removed stack %s. Its config and state are kept in %s; to put it back, run `sh %s`.",
		o.Name, rel, shellQuote(filepath.Join(rel, "RESTORE.txt")))
	abs, err := filepath.Abs(trash)
	if err != nil {
		abs = trash
	}
	out := StackRemoved{Type: "result", Message: msg, Stack: o.Name, Trash: abs, Restore: filepath.Join(abs, "RESTORE.txt")}
	return OutputOf(opts).Object(out, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, msg)
		return err
	})
}

// confirmRemove asks the user to type the stack's name, unless o.Yes;
// without a terminal, o.Yes is required.
func (s *Stacks) confirmRemove(o StackRemoveOptions) error {
	if o.Yes {
		return nil
	}
	if !s.IO().CanPrompt() {
		return Usage(fmt.Errorf("stack rm %w: pass --yes to remove stack %s", prompt.ErrYesRequired, o.Name))
	}
	msg := fmt.Sprintf("This removes stack %s: its config file and the state of its projects move to %s. Type the stack's name to confirm:", o.Name, TrashDir)
	typed, err := s.asker().Input(msg, "", "", nil)
	if err != nil {
		return err
	}
	if strings.TrimSpace(typed) != o.Name {
		return fmt.Errorf("%q is not the stack's name (%s); nothing was removed", typed, o.Name)
	}
	return nil
}
