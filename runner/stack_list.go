package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/runner/orchestrate"
)

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
func (s *Stacks) List(ctx context.Context) ([]StackListing, error) {
	byName := map[string]*StackListing{}
	get := func(name string) *StackListing {
		if l, ok := byName[name]; ok {
			return l
		}
		l := &StackListing{Name: name, Current: name == s.Selected, Projects: []ProjectListing{}}
		byName[name] = l
		return l
	}
	for _, name := range configStacks(s.Workspace) {
		get(name).ConfigFile = filepath.Join(ConfigDir, "Pulumi."+name+".yaml")
	}
	infos, err := s.backend.ListStacks(ctx)
	if err != nil {
		return nil, err
	}
	var problems []error
	for _, info := range infos {
		l := get(info.Name)
		problems = append(problems, s.listProjects(ctx, l, info.Projects)...)
		if err := s.withLastStackRun(ctx, l); err != nil {
			problems = append(problems, err)
		}
	}
	if sel := s.Selected; sel != "" {
		get(sel)
	}
	var out []StackListing
	for _, l := range byName {
		tags, err := s.backend.Tags(ctx, l.Name)
		if err != nil {
			return nil, err
		}
		l.Tags = tags
		if h, err := s.backend.StackLockHolder(ctx, l.Name); err == nil && h != nil && h.Stale() {
			l.LastResult = backend.Interrupted // a killed run whose lock nothing took over yet
		}
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(problems) > 0 {
		return out, &UnreadableStateError{Problems: problems}
	}
	return out, nil
}

// withLastStackRun takes into l the stack's newest run when it is newer
// than every project's own record: a run that changed nothing is recorded
// only for the stack, and its result (say a success after a failure)
// is the stack's and, when it succeeded, each project's it covered.
func (s *Stacks) withLastStackRun(ctx context.Context, l *StackListing) error {
	r, ok := s.backend.(backend.StackRunReader)
	if !ok {
		return nil
	}
	run, err := r.LastStackRun(ctx, l.Name)
	if err != nil || run == nil {
		return err
	}
	t := run.EndTime
	for i, p := range l.Projects {
		if _, covered := run.Projects[p.Name]; covered && run.Result == "succeeded" && p.LastResult != backend.Interrupted &&
			p.LastUpdate != nil && t.After(*p.LastUpdate) {
			l.Projects[i].LastResult = run.Result
		}
	}
	if l.LastResult != backend.Interrupted && (l.LastUpdate == nil || t.After(*l.LastUpdate)) {
		l.LastUpdate, l.LastResult, l.LastKind = &t, run.Result, run.Kind
	}
	return nil
}

// listProjects adds the projects of l's stack to l and returns why the
// state of some could not be read.
func (s *Stacks) listProjects(ctx context.Context, l *StackListing, projects []string) []error {
	var problems []error
	for _, p := range projects {
		sum, err := s.backend.Summary(ctx, p, l.Name)
		if err != nil && !errors.Is(err, backend.ErrNotFound) {
			l.Projects = append(l.Projects, ProjectListing{Name: p, Error: "unreadable: " + err.Error()})
			problems = append(problems, fmt.Errorf("stack %s, project %s: unreadable: %w", l.Name, p, err))
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
		if sum.Locked != nil && sum.Locked.Stale() {
			// A killed run, until the next operation takes its lock over
			// and records it in the history.
			pl.LastResult, l.LastResult = backend.Interrupted, backend.Interrupted
		}
		l.Resources += sum.Resources
		l.Projects = append(l.Projects, pl)
	}
	return problems
}

// ProjectOutputs is one project's outputs for display.
type ProjectOutputs struct {
	Project string
	Outputs map[string]any // secrets "[secret]" unless shown
}

// Outputs returns the outputs of every deployed project of stack (or of
// project only), secrets as "[secret]" unless show is set.
func (s *Stacks) Outputs(ctx context.Context, stack, project string, show bool) ([]ProjectOutputs, error) {
	projects, err := s.Projects(ctx, stack)
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
		outs, err := s.backend.Outputs(ctx, p, stack, c)
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

// History returns the operations on stack (of project only, when set),
// newest first; none is an empty list.
func (s *Stacks) History(ctx context.Context, stack, project string) ([]backend.HistoryEntry, error) {
	entries, err := s.backend.History(ctx, stack, project)
	if entries == nil && err == nil {
		entries = []backend.HistoryEntry{}
	}
	return entries, err
}
