package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugins"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
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
	// NoDurations leaves durations out of the plain and terminal views, for
	// logs that compare equal across runs.
	NoDurations bool
	// PlanOut (preview) is the file to write the whole graph's plan to;
	// PlanFile (up) the plan file to execute.
	PlanOut, PlanFile string
}

// Operate runs an operation across the provider's projects, reporting
// events to the terminal view, the plain view or the JSON stream (which
// includes what validation defaulted or warns about, and the URLs an up
// ends with). A view that could not write its output (a closed stdout) is
// an error too.
func (s *Session) Operate(ctx context.Context, o OpOptions) (sum *orchestrate.Summary, err error) {
	defer func() { sum, err = s.keyChecked(sum, err) }() // a run may start before the passphrase is checked
	if err := s.checkOp(o); err != nil {
		return nil, err
	}
	pf, err := s.readPlan(&o) // before anything else reads or writes
	if err != nil {
		return nil, err
	}
	// A missing plugin, or a runtime that cannot start, stops the run
	// before anything is written, naming every config problem with it.
	if err := s.checkPluginsAndConfig(ctx, o.Operation); err != nil {
		return nil, err
	}
	var hosted map[string]source.Hosted
	if o.Operation == orchestrate.Preview || o.Operation == orchestrate.Up {
		names := s.Graph.Order()
		if len(o.Targets) > 0 {
			names = o.Targets
		}
		if hosted, err = s.runtimes(names); err != nil {
			return nil, err
		}
	}
	sink, closeView := s.view(o)
	defer func() {
		if verr := closeView(); verr != nil {
			if err != nil {
				verr = fmt.Errorf("%w; the %s itself: %v", verr, o.Operation, err)
			}
			err = verr
		}
	}()
	if o.Operation == orchestrate.Preview || o.Operation == orchestrate.Up {
		rep, err := s.Validate(ctx)
		if err != nil {
			return nil, err
		}
		s.report(sink, rep)
	}
	req, stopPlugins, err := s.request(ctx, o, sink, hosted)
	if err != nil {
		return nil, err
	}
	defer stopPlugins() // before the view closes: their last lines still show
	shown, err := s.plan(ctx, &o, &req, pf)
	if err != nil {
		return nil, err
	}
	if err := s.confirm(o); err != nil {
		return nil, err
	}
	if shown != nil { // the files may have changed while the user read the plan
		if err := s.checkSums(shown); err != nil {
			return nil, err
		}
	}
	if err := s.accepted(o); err != nil {
		return nil, err
	}
	held := &summaryHold{sink: sink}
	req.Events = held
	sum, err = orchestrate.Run(ctx, req)
	if err == nil && o.Operation == orchestrate.Up {
		held.urls = exportedURLs(sum)
	}
	if err == nil && o.PlanOut != "" {
		if err = s.writePlan(ctx, o, sum, req.Crypter); err == nil {
			held.plan = o.PlanOut
		}
	}
	held.release()
	err = planRefused(err, o)
	if err == nil && o.Operation == orchestrate.Destroy && len(o.Targets) == 0 {
		removeEmptyDirs(s.DataDir(), filepath.Join(s.Workspace, ".runner"))
	}
	return sum, err
}

// plan gives an up the plans it executes: those of the plan file (the
// file is the approval, as for `terraform apply PLANFILE`), or on a
// terminal those of the preview it shows before asking, as Pulumi does.
// It returns the plan file, or for the preview shown the checksums of the
// stack config and environment file it was made with (nil: no plan).
func (s *Session) plan(ctx context.Context, o *OpOptions, req *orchestrate.Request, pf *planFile) (*planFile, error) {
	if pf != nil {
		plans, err := s.decode(ctx, pf, req.Crypter)
		if err != nil {
			return nil, err
		}
		req.Plans = plans
		o.Yes = true
		return pf, nil
	}
	if o.Operation != orchestrate.Up || o.Yes || !s.IO().CanPrompt() {
		return nil, nil
	}
	cfg, env, err := s.sums()
	if err != nil {
		return nil, err
	}
	pre := *req
	pre.Operation = orchestrate.Preview
	shown, err := orchestrate.Run(ctx, pre)
	if err != nil {
		return nil, fmt.Errorf("the preview before up failed; nothing was changed: %w", err)
	}
	req.Plans = shown.Plans // up executes the plan it showed
	return &planFile{Config: cfg, Environment: env}, nil
}

// check refuses a negative bound, before anything is opened.
func (o OpOptions) check() error {
	if o.Parallel < 0 || o.StepParallel < 0 {
		return Usage(errors.New("--parallel and --step-parallel must not be negative"))
	}
	return nil
}

// checkOp refuses options that name no project or a negative bound.
func (s *Session) checkOp(o OpOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	// Before validation, which may ask for config, so that a mistyped
	// target is the first thing a user learns.
	if err := orchestrate.CheckTargets(s.Graph.Order(), o.Targets); err != nil {
		return Usage(fmt.Errorf("provider %s: %w", s.Provider.Name, err))
	}
	return nil
}

// request builds the orchestrator's request: the stack's crypter (which
// writes the encryptionsalt of a new stack), backend, plugins and config,
// and the function that stops the run's provider plugins.
func (s *Session) request(ctx context.Context, o OpOptions, sink event.Sink, runtimes map[string]source.Hosted) (orchestrate.Request, func(), error) {
	c, err := s.operationCrypter()
	if err != nil {
		return orchestrate.Request{}, nil, err
	}
	if s.keyCheckWaits(o, runtimes) {
		runtimes = afterKeyCheck(runtimes, c, &s.keyShown)
	} else if err := c.Wait(ctx); err != nil {
		return orchestrate.Request{}, nil, err
	}
	b, err := s.Backend()
	if err != nil {
		return orchestrate.Request{}, nil, err
	}
	cfg, err := s.engineConfig(ctx, c)
	if err != nil {
		return orchestrate.Request{}, nil, err
	}
	env := s.Environ()
	environ := environList(env)
	plugs := s.Opts.Plugins
	if plugs == nil {
		plugs = plugins.Builtin
	}
	user, warnings, err := s.userProjects(ctx, s.Graph.Order(), cfg, runtimes)
	for _, w := range warnings {
		sink.Emit(event.Event{Type: event.Warning, Time: time.Now(), Stack: s.StackName, Message: w})
	}
	if err != nil {
		return orchestrate.Request{}, nil, err
	}
	hosted, load, stop := s.hostedPlugins(ctx, environ, sink, configSecrets(cfg, user))
	if o.Operation != orchestrate.Destroy {
		if err := s.preflight(ctx, hosted, cfg); err != nil {
			stop()
			return orchestrate.Request{}, nil, err
		}
	}
	return orchestrate.Request{
		Operation: o.Operation, Stack: s.StackName, Projects: s.projects(user), Targets: o.Targets,
		Parallel: o.Parallel, StepParallel: o.StepParallel, FailFast: o.FailFast, RefreshFirst: o.Refresh,
		Backend: b, Plugins: func() []resource.Plugin { return append(plugs(environ), hosted...) }, LoadPlugin: load.plugin, LoadParameterized: load.param, Dir: s.Workspace, Crypter: c, SecretsProvider: s.SecretsProvider(),
		ReferenceCrypter: (&referenceCrypters{s: s}).open,
		Config:           cfg, Env: env, Lock: backend.CurrentLockInfo("runner " + o.Operation), EngineVersion: s.Opts.Version, Events: sink,
	}, stop, nil
}

// confirm asks before up, refresh and destroy unless --yes.
func (s *Session) confirm(o OpOptions) error {
	var msg string
	switch o.Operation {
	case orchestrate.Up:
		msg = fmt.Sprintf("Do you want to perform this update of stack %s?", s.StackName)
	case orchestrate.Destroy:
		msg = fmt.Sprintf("Destroy every resource of provider %s on stack %s?", s.Provider.Name, s.StackName)
	case orchestrate.Refresh: // it rewrites the state, as Pulumi's asks
		msg = fmt.Sprintf("Read every resource of provider %s on stack %s back into its state?", s.Provider.Name, s.StackName)
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

// view chooses how events are shown and returns the function that ends
// the view with its write error, if any. With --debug every event is also
// written to stderr as a JSON line (above the status area on a terminal).
func (s *Session) view(o OpOptions) (event.Sink, func() error) {
	io := s.IO()
	debug := s.Opts.Debug && !s.Opts.JSON
	switch {
	case s.Opts.JSON:
		j := view.NewJSON(io.Out)
		return j, j.Err
	case io.Live():
		l := view.NewLive(io.Out, io.Color())
		l.SetShowDurations(!o.NoDurations)
		end := func() error { l.Close(); return l.Err() }
		if debug {
			return event.Tee(l, l.Above(io.Err)), end
		}
		return l, end
	}
	p := view.NewPlain(io.Out, io.Color())
	p.ShowDurations = !o.NoDurations
	if debug {
		return event.Tee(p, view.NewJSON(io.Err)), p.Err
	}
	return p, p.Err
}

// engineConfig returns the stack config for programs, secrets as
// resource.Secret. A value the provider's questions call a secret is one
// even when the file holds it in plain text (validation warns about it):
// programs put it where secrets go and state keeps it encrypted.
func (s *Session) engineConfig(ctx context.Context, c *config.Crypter) (map[string]any, error) {
	vals, err := s.Config.Values(ctx, c)
	if err != nil {
		return nil, Invalid(fmt.Errorf("reading %s: %w", s.ConfigPath, err))
	}
	secret := map[string]bool{}
	for _, q := range s.Provider.Questions {
		secret[q.Key] = q.Secret
	}
	out := make(map[string]any, len(vals))
	for k, v := range vals {
		out[k] = toEngine(v)
		if _, ok := out[k].(resource.Secret); !ok && secret[k] {
			out[k] = resource.Secret{Element: out[k]}
		}
	}
	return out, nil
}

func toEngine(v any) any {
	return resource.Map(v, func(x any) (any, bool) {
		if s, ok := x.(config.Secret); ok {
			return resource.Secret{Element: s.Reveal()}, true
		}
		return nil, false
	})
}

// report emits what validation defaulted or warns about.
func (s *Session) report(sink event.Sink, rep *Report) {
	now := time.Now()
	for _, warn := range rep.Warnings {
		sink.Emit(event.Event{Type: event.Warning, Time: now, Stack: s.StackName, Message: warn})
	}
	if len(rep.Defaulted) > 0 {
		sink.Emit(event.Event{Type: event.ConfigDefaulted, Time: now, Stack: s.StackName, File: s.ConfigPath, Keys: rep.Defaulted})
	}
}

// summaryHold passes events on, except the summary, which it holds until
// release: an up's summary carries the URLs its projects export, known only
// once the orchestrator returns, and stays the last event.
type summaryHold struct {
	sink event.Sink
	urls []string
	plan string // the plan file a preview wrote

	mu   sync.Mutex
	held *event.Event
}

func (h *summaryHold) Emit(e event.Event) {
	if e.Type == event.Summary {
		h.mu.Lock()
		h.held = &e
		h.mu.Unlock()
		return
	}
	h.sink.Emit(e)
}

// release emits the held summary, with the URLs and the plan file.
func (h *summaryHold) release() {
	h.mu.Lock()
	held := h.held
	h.mu.Unlock()
	if held != nil {
		held.URLs, held.File = h.urls, h.plan
		h.sink.Emit(*held)
	}
}

// exportedURLs returns the distinct "url" outputs of the projects, sorted.
func exportedURLs(sum *orchestrate.Summary) []string {
	if sum == nil {
		return nil
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
	return urls
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
