package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/runner/orchestrate"
)

// Workspace-level access for the stack commands, which may work on a stack
// other than the selected one and must not create the environment file.
type Stacks struct {
	Opts      Options
	Workspace string
	Backend   *backend.Folder
	// Selected is the environment file's PULUMI_STACK ("" when none).
	Selected string
	Provider *providers.Provider
	env      *config.EnvFile
}

// OpenStacks opens the workspace for the stack commands.
func OpenStacks(opts Options) (*Stacks, error) {
	ws, env, err := openEnv(opts)
	if err != nil {
		return nil, err
	}
	b, err := OpenBackend(opts, ws)
	if err != nil {
		return nil, err
	}
	p, err := registry(opts).Get(opts.Provider)
	if err != nil {
		return nil, Usage(err)
	}
	return &Stacks{Opts: opts, Workspace: ws, Backend: b, Selected: env.Values[config.StackVar], Provider: p, env: env}, nil
}

// Stack returns the stack the command is about: --stack, else the selected one.
func (s *Stacks) Stack() (string, error) {
	if s.Opts.Stack != "" {
		return s.Opts.Stack, nil
	}
	if s.Selected != "" {
		return s.Selected, nil
	}
	return "", Usage(config.ErrNoStack)
}

// Projects returns the projects of stack: the provider's, in execution
// order, then any other project that has state there.
func (s *Stacks) Projects(stack string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, p := range s.Provider.Projects {
		out = append(out, p.Name)
		seen[p.Name] = true
	}
	stored, err := s.Backend.Projects(stack)
	if err != nil {
		return nil, err
	}
	for _, p := range stored {
		if !seen[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

// Crypter opens the passphrase crypter of stack's config file.
func (s *Stacks) Crypter(stack string) (*config.Crypter, error) {
	sess, err := s.session(stack)
	if err != nil {
		return nil, err
	}
	c, err := sess.openCrypter(false)
	if errors.Is(err, errNoSalt) {
		return nil, Invalid(fmt.Errorf("stack %s has no encryptionsalt in %s; create the stack with `runner stack init %s`", stack, sess.ConfigPath, stack))
	}
	return c, err
}

// session is the Session of stack that the stack commands open their
// crypter through: the workspace, environment file and backend they hold,
// and the stack's config.
func (s *Stacks) session(stack string) (*Session, error) {
	path := StackConfigPath(s.Workspace, stack)
	cfg, err := config.LoadStack(path)
	if err != nil {
		return nil, Invalid(err)
	}
	return &Session{Opts: s.Opts, Workspace: s.Workspace, Env: s.env, StackName: stack, Config: cfg, ConfigPath: path, backend: s.Backend}, nil
}

// StackListing is one stack of `stack ls`.
type StackListing struct {
	Name       string            `json:"name"`
	Current    bool              `json:"current"`
	ConfigFile string            `json:"configFile,omitempty"`
	Projects   []ProjectListing  `json:"projects"`
	Resources  int               `json:"resourceCount"`
	LastUpdate *time.Time        `json:"lastUpdate,omitempty"`
	LastResult string            `json:"lastResult,omitempty"`
	LastKind   string            `json:"lastOperation,omitempty"`
	Tags       map[string]string `json:"tags"`
}

// ProjectListing is one project with state on a stack.
type ProjectListing struct {
	Name       string     `json:"name"`
	Resources  int        `json:"resourceCount"`
	Pending    int        `json:"pendingOperations,omitempty"`
	LastUpdate *time.Time `json:"lastUpdate,omitempty"`
	LastResult string     `json:"lastResult,omitempty"`
	// Error says why the project's state could not be read ("" when it could).
	Error string `json:"error,omitempty"`
}

// UnreadableStateError is a listing that is complete but for the state of
// some projects, which could not be read (a corrupt snapshot, say).
type UnreadableStateError struct {
	Problems []error
}

func (e *UnreadableStateError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the state of %d project(s) could not be read; the rest is listed:", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  " + p.Error())
	}
	b.WriteString("\nrestore a project's state from a copy in its history folder with `runner --stack STACK stack import --project PROJECT --file COPY`")
	return b.String()
}

// List returns every stack known to the workspace: config files and state.
// A project whose state cannot be read is listed with its Error set, and
// the listing, complete otherwise, comes with an *UnreadableStateError.
func (s *Stacks) List() ([]StackListing, error) {
	byName := map[string]*StackListing{}
	get := func(name string) *StackListing {
		if l, ok := byName[name]; ok {
			return l
		}
		l := &StackListing{Name: name, Current: name == s.Selected, Projects: []ProjectListing{}}
		byName[name] = l
		return l
	}
	files, _ := filepath.Glob(filepath.Join(s.Workspace, ConfigDir, "Pulumi.*.yaml"))
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "Pulumi."), ".yaml")
		if config.ValidStackName(name) {
			get(name).ConfigFile = filepath.Join(ConfigDir, filepath.Base(f))
		}
	}
	infos, err := s.Backend.ListStacks()
	if err != nil {
		return nil, err
	}
	var problems []error
	for _, info := range infos {
		l := get(info.Name)
		for _, p := range info.Projects {
			sum, err := s.Backend.Summary(p, info.Name)
			if err != nil && !errors.Is(err, backend.ErrNotFound) {
				l.Projects = append(l.Projects, ProjectListing{Name: p, Error: "unreadable: " + err.Error()})
				problems = append(problems, fmt.Errorf("stack %s, project %s: unreadable: %w", info.Name, p, err))
				continue
			}
			pl := ProjectListing{Name: p, Resources: sum.Resources, Pending: sum.Pending}
			if sum.LastUpdate != nil {
				t := sum.LastUpdate.EndTime
				pl.LastUpdate, pl.LastResult = &t, sum.LastUpdate.Result
				if l.LastUpdate == nil || t.After(*l.LastUpdate) {
					l.LastUpdate, l.LastResult, l.LastKind = &t, sum.LastUpdate.Result, sum.LastUpdate.Kind
				}
			}
			l.Resources += sum.Resources
			l.Projects = append(l.Projects, pl)
		}
	}
	if sel := s.Selected; sel != "" {
		get(sel)
	}
	var out []StackListing
	for _, l := range byName {
		tags, err := s.Backend.Tags(l.Name)
		if err != nil {
			return nil, err
		}
		if tags == nil {
			tags = map[string]string{}
		}
		l.Tags = tags
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(problems) > 0 {
		return out, &UnreadableStateError{Problems: problems}
	}
	return out, nil
}

// ProjectOutputs is one project's outputs for display.
type ProjectOutputs struct {
	Project string
	Outputs map[string]any // secrets "[secret]" unless shown
}

// Outputs returns the outputs of every deployed project of stack (or of
// project only), secrets as "[secret]" unless show is set.
func (s *Stacks) Outputs(ctx context.Context, stack, project string, show bool) ([]ProjectOutputs, error) {
	projects, err := s.Projects(stack)
	if err != nil {
		return nil, err
	}
	if project != "" {
		if !contains(projects, project) {
			return nil, Usage(fmt.Errorf("--project %q names no project of stack %s; its projects are: %s", project, stack, strings.Join(projects, ", ")))
		}
		projects = []string{project}
	}
	c, err := s.Crypter(stack)
	if err != nil {
		return nil, err
	}
	var out []ProjectOutputs
	for _, p := range projects {
		outs, err := s.Backend.Outputs(ctx, p, stack, c)
		if errors.Is(err, backend.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, ProjectOutputs{Project: p, Outputs: plainOutputs(outs, show)})
	}
	return out, nil
}

// plainOutputs returns outputs for showing: unknown values as "[unknown]",
// secrets as "[secret]", or with show as their plaintext.
func plainOutputs(m resource.PropertyMap, show bool) map[string]any {
	v := any(map[string]any(m))
	if show {
		v = resource.Map(v, reveal)
	}
	return orchestrate.Display(v).(map[string]any)
}

// reveal is a resource.Map function that replaces secrets by their values.
func reveal(x any) (any, bool) {
	if s, ok := x.(resource.Secret); ok {
		return resource.Map(s.Element, reveal), true
	}
	return nil, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Export returns the project's state as Pulumi's deployment v3 JSON, as
// stored (secrets as ciphertext), or with show, each secret's plaintext in
// Pulumi's {"plaintext": ...} form.
func (s *Stacks) Export(ctx context.Context, stack, project string, show bool) ([]byte, error) {
	data, err := s.Backend.Export(ctx, project, stack)
	if errors.Is(err, backend.ErrNotFound) {
		return nil, fmt.Errorf("project %s has no state on stack %s", project, stack)
	}
	if err != nil {
		return nil, err
	}
	if !show {
		return pretty(data)
	}
	c, err := s.Crypter(stack)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	doc, err = revealSecrets(ctx, doc, c)
	if err != nil {
		return nil, err
	}
	return marshalIndent(doc)
}

func pretty(data []byte) ([]byte, error) {
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	return marshalIndent(doc)
}

func marshalIndent(doc any) ([]byte, error) {
	out, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// revealSecrets replaces each secret object's ciphertext with its plaintext.
func revealSecrets(ctx context.Context, v any, c *config.Crypter) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if x[state.SigKey] == state.SecretSig {
			if ct, ok := x["ciphertext"].(string); ok {
				pt, err := c.DecryptValue(ctx, ct)
				if err != nil {
					return nil, err
				}
				return map[string]any{state.SigKey: state.SecretSig, "plaintext": pt}, nil
			}
		}
		for k, e := range x {
			r, err := revealSecrets(ctx, e, c)
			if err != nil {
				return nil, err
			}
			x[k] = r
		}
	case []any:
		for i, e := range x {
			r, err := revealSecrets(ctx, e, c)
			if err != nil {
				return nil, err
			}
			x[i] = r
		}
	}
	return v, nil
}

// Import checks data (schema, integrity, URNs of this project and stack,
// secrets that open with the stack's passphrase) and makes it the
// project's state, atomically and under the lock; anything wrong leaves
// the current state untouched. Secrets in plaintext form (an export made
// with --show-secrets) are encrypted with the stack's passphrase first, so
// that no plaintext secret is ever stored.
func (s *Stacks) Import(ctx context.Context, stack, project string, data []byte) error {
	c, err := s.Crypter(stack)
	if err != nil {
		return err
	}
	data, _, err = state.SealPlaintextSecrets(ctx, data, c, state.PassphraseProvider(c.EncryptionSalt()))
	if err != nil {
		return Invalid(fmt.Errorf("importing into project %s of stack %s: %w; the current state was left as it was", project, stack, err))
	}
	if err := s.Backend.Import(ctx, project, stack, data, c); err != nil {
		return Invalid(fmt.Errorf("%w; the current state was left as it was", err))
	}
	return nil
}

// History returns the operations on stack (of project only, when set),
// newest first.
func (s *Stacks) History(stack, project string) ([]backend.HistoryEntry, error) {
	return s.Backend.History(stack, project)
}

// Remove removes stack: the state of every project (refused while any
// still has resources, unless force) and the config file (unless
// preserveConfig). It returns warnings to show.
func (s *Stacks) Remove(ctx context.Context, stack string, force, preserveConfig bool) ([]string, error) {
	projects, err := s.Backend.Projects(stack)
	if err != nil {
		return nil, err
	}
	cfgPath := StackConfigPath(s.Workspace, stack)
	_, cfgErr := os.Stat(cfgPath)
	if len(projects) == 0 && cfgErr != nil {
		return nil, fmt.Errorf("there is no stack %s in this workspace (no %s and no state)", stack, cfgPath)
	}
	unlock, err := s.lockForRemove(ctx, stack)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var busy, warnings []string
	for _, p := range projects {
		sum, err := s.Backend.Summary(p, stack)
		if err != nil && !errors.Is(err, backend.ErrNotFound) {
			return nil, err
		}
		if n := managed(sum); n > 0 {
			busy = append(busy, fmt.Sprintf("%s (%d resources)", p, n))
		}
	}
	if len(busy) > 0 && !force {
		return nil, fmt.Errorf("stack %s still has resources in %s; run `runner --stack %s destroy` first, or pass --force to forget them", stack, strings.Join(busy, ", "), stack)
	}
	if len(busy) > 0 {
		warnings = append(warnings, fmt.Sprintf("removing the state of stack %s while it still has resources in %s: the resources themselves are left running and runner no longer knows them", stack, strings.Join(busy, ", ")))
	}
	for _, p := range projects {
		if err := s.Backend.RemoveStack(ctx, p, stack, force); err != nil {
			return warnings, err
		}
	}
	if !preserveConfig && cfgErr == nil {
		if err := config.RemoveStack(cfgPath); err != nil {
			return warnings, err
		}
	}
	return warnings, nil
}

// lockForRemove takes the stack's own lock for `stack rm`, so that the
// state of no project is removed while up, refresh or destroy works on the
// stack (a *backend.LockedError, exit 4, names the holder). The returned
// function lets go of it; once the stack's folder is removed, with the
// lock in it, there is nothing left to let go.
func (s *Stacks) lockForRemove(ctx context.Context, stack string) (func(), error) {
	dir := filepath.Join(s.Backend.Root, "stacks", stack)
	if _, err := os.Stat(dir); err != nil {
		return func() {}, nil
	}
	lock, err := s.Backend.LockStack(ctx, stack, backend.CurrentLockInfo("runner stack rm"))
	if err != nil {
		return nil, fmt.Errorf("removing stack %s: %w", stack, err)
	}
	// Removing the stack's folder removes its lock too; Unlock then only
	// says so.
	return func() { _ = lock.Unlock() }, nil
}

// managed counts a summary's resources other than the root stack.
func managed(sum backend.StackSummary) int {
	if sum.Resources <= 1 {
		return 0
	}
	return sum.Resources - 1
}

// Init creates stack's config with a fresh encryptionsalt and selects it.
func (s *Stacks) Init(stack string) (string, error) {
	if !config.ValidStackName(stack) {
		return "", Usage(fmt.Errorf("%q is not a valid stack name: use letters, digits, '-', '_' and '.'", stack))
	}
	path := StackConfigPath(s.Workspace, stack)
	if _, err := os.Stat(path); err == nil {
		return "", fmt.Errorf("stack %s already exists (%s); select it with `runner stack select %s`", stack, path, stack)
	}
	sess, err := s.session(stack)
	if err != nil {
		return "", err
	}
	// Writes the file with its encryptionsalt (asks twice on a terminal).
	if _, err := sess.Crypter(); err != nil {
		return "", err
	}
	return path, s.Select(stack)
}

// Select writes PULUMI_STACK=stack in the environment file.
func (s *Stacks) Select(stack string) error {
	env, err := config.LoadEnv(EnvFilePath(s.Opts, s.Workspace))
	if err != nil {
		return Usage(err)
	}
	if err := env.SetStack(stack); err != nil {
		return Usage(err)
	}
	s.Selected = stack
	return nil
}

// Unlock clears a project's lock on stack, and the stack's own lock (which
// up, refresh and destroy hold across the projects) when its holder no
// longer runs. A holder that still runs on this host, or one of another
// host for the stack's lock, is refused unless force.
func (s *Stacks) Unlock(stack, project string, force bool) (string, error) {
	msg, err := s.unlockProject(stack, project, force)
	if err != nil {
		return "", err
	}
	stackMsg, err := s.unlockStack(stack, force)
	if err != nil || stackMsg == "" {
		return msg, err
	}
	return msg + "\n" + stackMsg, nil
}

// UnlockAll clears the stack's own lock and every project's lock on stack
// whose holder no longer runs (or, with force, whoever holds them): what
// an operation killed while projects ran side by side leaves behind. A
// project's holder that still runs is refused unless force.
func (s *Stacks) UnlockAll(stack string, force bool) (string, error) {
	projects, err := s.Backend.LockedProjects(stack)
	if err != nil {
		return "", err
	}
	var msgs []string
	for _, project := range projects {
		msg, err := s.unlockProject(stack, project, force)
		if err != nil {
			return strings.Join(msgs, "\n"), err
		}
		msgs = append(msgs, msg)
	}
	stackMsg, err := s.unlockStack(stack, force)
	if err != nil {
		return strings.Join(msgs, "\n"), err
	}
	if stackMsg != "" {
		msgs = append(msgs, stackMsg)
	}
	if len(msgs) == 0 {
		return fmt.Sprintf("stack %s is not locked", stack), nil
	}
	return strings.Join(msgs, "\n"), nil
}

func (s *Stacks) unlockProject(stack, project string, force bool) (string, error) {
	holder, err := s.Backend.LockHolder(project, stack)
	if err != nil {
		return "", err
	}
	if holder == nil {
		return fmt.Sprintf("project %s of stack %s is not locked", project, stack), nil
	}
	if !holder.Stale() && !force {
		held := &backend.LockedError{Project: project, Stack: stack, Holder: *holder}
		return "", fmt.Errorf("%w, which may still run; wait for it, or pass --force if you are sure it is not working on this stack", held)
	}
	if err := s.Backend.ForceUnlock(project, stack); err != nil {
		return "", err
	}
	return fmt.Sprintf("cleared the lock of project %s on stack %s (held by %s, pid %d on %s)", project, stack, holder.Command, holder.PID, holder.Host), nil
}

// unlockStack clears the stack's own lock when its holder is a process of
// this host that no longer runs, or with force. It returns "" when the
// stack's lock is not taken.
func (s *Stacks) unlockStack(stack string, force bool) (string, error) {
	holder, err := s.Backend.StackLockHolder(stack)
	if err != nil || holder == nil {
		return "", err
	}
	if !force && !holder.Stale() {
		return fmt.Sprintf("stack %s stays locked by %s (pid %d on %s), which may still run; pass --force to clear that lock too", stack, holder.Command, holder.PID, holder.Host), nil
	}
	if err := s.Backend.ForceUnlockStack(stack); err != nil {
		return "", err
	}
	return fmt.Sprintf("cleared the lock of stack %s (held by %s, pid %d on %s)", stack, holder.Command, holder.PID, holder.Host), nil
}

// Repair makes a project's state on stack loadable again, as `pulumi state
// repair` does: a leftover journal is folded in, dangling parent, provider
// and dependency references are resolved, the resources are put in
// dependency order, and pending operations are cleared (once the user has
// checked the resources they name). It returns one line per change.
func (s *Stacks) Repair(ctx context.Context, stack, project string) (string, error) {
	c, err := s.Crypter(stack)
	if err != nil {
		return "", err
	}
	changes, err := s.Backend.Repair(ctx, project, stack, c)
	if err != nil {
		return "", err
	}
	if len(changes) == 0 {
		return fmt.Sprintf("the state of project %s on stack %s is consistent; nothing to repair", project, stack), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "repaired the state of project %s on stack %s (the previous state is kept in its history folder):", project, stack)
	for _, ch := range changes {
		b.WriteString("\n  - " + ch)
	}
	return b.String(), nil
}
