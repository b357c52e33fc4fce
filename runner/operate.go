package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugins"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/runner/event"
	"github.com/runnerhq/runner/runner/orchestrate"
	"github.com/runnerhq/runner/runner/prompt"
	"github.com/runnerhq/runner/runner/view"
)

// OpOptions are the flags of preview, up, refresh and destroy.
type OpOptions struct {
	Operation    string
	Yes          bool
	Parallel     int
	StepParallel int
	Targets      []string
	Refresh      bool
	FailFast     bool
	// PlanOut (preview) is the file to write the whole graph's plan to;
	// PlanFile (up) the plan file to execute.
	PlanOut, PlanFile string
}

// ErrNotDeployable matches (errors.Is) the error of an operation on a
// provider that cannot deploy yet.
var ErrNotDeployable = errors.New("the provider cannot deploy")

// notDeployableError carries the provider's own explanation, which is all
// the user sees.
type notDeployableError struct{ msg string }

func (e *notDeployableError) Error() string        { return e.msg }
func (e *notDeployableError) Is(target error) bool { return target == ErrNotDeployable }

// Operate runs an operation across the provider's projects, reporting
// events to the terminal view, the plain view or the JSON stream.
func (s *Session) Operate(ctx context.Context, o OpOptions) (*orchestrate.Summary, error) {
	// Before validation, which may ask for config, so that a mistyped
	// target is the first thing a user learns.
	if err := orchestrate.CheckTargets(s.Graph.Order(), o.Targets); err != nil {
		return nil, Usage(fmt.Errorf("provider %s: %w", s.Provider.Name, err))
	}
	pf, err := s.readPlan(&o) // before anything else reads or writes
	if err != nil {
		return nil, err
	}
	if o.Operation == orchestrate.Preview || o.Operation == orchestrate.Up {
		rep, err := s.Validate(ctx)
		if err != nil {
			return nil, err
		}
		s.printReport(rep)
	}
	// After validation, so that a user learns every missing key first.
	if s.Provider.NotDeployable != "" {
		return nil, &notDeployableError{msg: s.Provider.NotDeployable}
	}
	c, err := s.Crypter() // writes the encryptionsalt of a new stack
	if err != nil {
		return nil, err
	}
	b, err := s.Backend()
	if err != nil {
		return nil, err
	}
	cfg, err := s.engineConfig(ctx, c)
	if err != nil {
		return nil, err
	}
	req := orchestrate.Request{
		Operation: o.Operation, Stack: s.StackName, Projects: s.projects(), Targets: o.Targets,
		Parallel: o.Parallel, StepParallel: o.StepParallel, FailFast: o.FailFast, RefreshFirst: o.Refresh,
		Backend: b, Plugins: plugins.Builtin, Crypter: c, SecretsProvider: s.SecretsProvider(),
		Config: cfg, Env: environ(), Lock: backend.CurrentLockInfo("runner " + o.Operation),
	}
	if pf != nil {
		if req.Plans, err = s.decode(ctx, pf, c); err != nil {
			return nil, err
		}
		o.Yes = true // the plan is the approval, as for `terraform apply PLANFILE`
	}
	if o.Operation == orchestrate.Up && !o.Yes && s.IO().CanPrompt() {
		// As Pulumi does: show what up would do, then ask.
		pre := req
		pre.Operation = orchestrate.Preview
		sink, closeView := s.view()
		pre.Events = sink
		shown, err := orchestrate.Run(ctx, pre)
		closeView()
		if err != nil {
			return nil, fmt.Errorf("the preview before up failed; nothing was changed: %w", err)
		}
		req.Plans = shown.Plans // up executes the plan it showed
	}
	if err := s.confirm(o); err != nil {
		return nil, err
	}
	sink, closeView := s.view()
	req.Events = sink
	sum, err := orchestrate.Run(ctx, req)
	closeView()
	if err == nil && o.PlanOut != "" {
		err = s.writePlan(ctx, o, sum, c)
	}
	err = planRefused(err, o)
	if err == nil && o.Operation == orchestrate.Destroy && len(o.Targets) == 0 {
		removeEmptyDirs(s.DataDir(), filepath.Join(s.Workspace, ".runner"))
	}
	if err == nil && o.Operation == orchestrate.Up && !s.Opts.JSON {
		s.printURLs(sum)
	}
	return sum, err
}

// confirm asks before up and destroy unless --yes.
func (s *Session) confirm(o OpOptions) error {
	var msg string
	switch o.Operation {
	case orchestrate.Up:
		msg = fmt.Sprintf("Do you want to perform this update of stack %s?", s.StackName)
	case orchestrate.Destroy:
		msg = fmt.Sprintf("Destroy every resource of provider %s on stack %s?", s.Provider.Name, s.StackName)
	default:
		return nil
	}
	ok, err := prompt.Confirm(s.IO(), s.asker(), msg, o.Yes)
	if errors.Is(err, prompt.ErrYesRequired) {
		return Usage(fmt.Errorf("%s %w", o.Operation, err))
	}
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("cancelled: nothing was changed")
	}
	return nil
}

// view chooses how events are shown; with --debug every event is also
// written to stderr as a JSON line.
func (s *Session) view() (event.Sink, func()) {
	sink, closeView := s.mainView()
	if s.Opts.Debug && !s.Opts.JSON {
		return event.Tee(sink, view.NewJSON(s.IO().Err)), closeView
	}
	return sink, closeView
}

func (s *Session) mainView() (event.Sink, func()) {
	io := s.IO()
	switch {
	case s.Opts.JSON:
		return view.NewJSON(io.Out), func() {}
	case io.Live():
		l := view.NewLive(io.Out, io.Color())
		return l, l.Close
	}
	return view.NewPlain(io.Out, io.Color()), func() {}
}

// projects adapts the provider's projects to the orchestrator.
func (s *Session) projects() []orchestrate.Project {
	rt := s.Runtime()
	var out []orchestrate.Project
	for _, name := range s.Graph.Order() {
		p, _ := s.Provider.Project(name)
		op := orchestrate.Project{Name: p.Name, DependsOn: p.DependsOn}
		if p.Program != nil {
			op.Program = p.Program(rt)
		}
		if p.OnSuccess != nil {
			hook := p.OnSuccess
			op.OnSuccess = func(ctx context.Context, in orchestrate.HookInput) error {
				return hook(ctx, providers.HookInput{Runtime: rt, Project: in.Project, Outputs: in.Outputs,
					Config: in.Config, Env: in.Env, Log: in.Log})
			}
		}
		out = append(out, op)
	}
	return out
}

// engineConfig returns the stack config for programs, secrets as resource.Secret.
func (s *Session) engineConfig(ctx context.Context, c *config.Crypter) (map[string]any, error) {
	vals, err := s.Config.Values(ctx, c)
	if err != nil {
		return nil, Invalid(fmt.Errorf("reading %s: %w", s.ConfigPath, err))
	}
	out := make(map[string]any, len(vals))
	for k, v := range vals {
		out[k] = toEngine(v)
	}
	return out, nil
}

func toEngine(v any) any {
	switch x := v.(type) {
	case config.Secret:
		return resource.Secret{Element: x.Reveal()}
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = toEngine(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = toEngine(e)
		}
		return l
	}
	return v
}

func environ() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// printReport shows what validation asked, defaulted or warns about.
func (s *Session) printReport(rep *Report) {
	if s.Opts.JSON {
		return
	}
	w := s.IO().Err
	for _, warn := range rep.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	if len(rep.Defaulted) > 0 {
		fmt.Fprintf(w, "Set to their defaults in %s: %s\n", s.ConfigPath, strings.Join(rep.Defaulted, ", "))
	}
}

// printURLs ends an up with the URLs the projects export.
func (s *Session) printURLs(sum *orchestrate.Summary) {
	if sum == nil {
		return
	}
	seen := map[string]bool{}
	var urls []string
	for _, outs := range sum.Outputs {
		if u, err := outs.String("url", ""); err == nil && u != "" && !seen[u] {
			seen[u] = true
			urls = append(urls, u)
		}
	}
	sort.Strings(urls)
	for _, u := range urls {
		fmt.Fprintf(s.IO().Out, "URL: %s\n", u)
	}
}

// removeEmptyDirs removes dir and its parents up to stop while they are empty.
func removeEmptyDirs(dir, stop string) {
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i]) // fails, harmlessly, when not empty
	}
	for d := filepath.Dir(dir); strings.HasPrefix(d, stop) && d != stop; d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			break
		}
	}
}
