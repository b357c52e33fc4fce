package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/walk"
	"github.com/runnerhq/runner/internal/lines"
	"github.com/runnerhq/runner/runner/event"
)

// runProject runs the operation on one project and reports it.
func (o *run) runProject(ctx context.Context, name string) error {
	start := time.Now()
	op := o.req.Operation
	o.emit(event.Event{Type: event.ProjectStart, Operation: op, Stack: o.req.Stack, Project: name})
	res, note, err := o.operate(ctx, name)
	counts := map[string]int{}
	if res != nil {
		for k, n := range res.Changes {
			if n > 0 {
				counts[string(k)] = n
			}
		}
		if op != Destroy {
			o.emit(event.Event{Type: event.Outputs, Project: name, Outputs: Display(res.Outputs).(map[string]any)})
		}
	}
	if note != "" {
		o.emit(event.Event{Type: event.Log, Project: name, Message: note})
	}
	row := event.Row{Project: name, Operation: op, Result: walk.Succeeded.String(), Counts: counts,
		DurationMS: time.Since(start).Milliseconds()}
	if err != nil {
		row.Result = walk.Failed.String()
		if errors.Is(err, context.Canceled) {
			row.Result = walk.Cancelled.String()
		}
		row.Error = err.Error()
	} else if res != nil && (op == Up || op == Preview) {
		// Dependents read these through references(), not the snapshot.
		o.mu.Lock()
		o.outputs[name] = res.Outputs
		if res.Plan != nil {
			o.plans[name] = res.Plan
		}
		o.mu.Unlock()
	}
	o.mu.Lock()
	o.rows[name] = &row
	o.mu.Unlock()
	o.emit(event.Event{Type: event.ProjectDone, Operation: op, Stack: o.req.Stack, Project: name, Result: row.Result,
		Error: row.Error, Counts: counts, DurationMS: row.DurationMS})
	return err
}

// operate calls the engine for one project. note, when set, explains a
// project that needed no work.
func (o *run) operate(ctx context.Context, name string) (*engine.Result, string, error) {
	p := o.byName[name]
	cfg, dir := o.req.Config, o.req.Dir
	if p.Config != nil {
		cfg = p.Config
	}
	if p.Dir != "" {
		dir = p.Dir
	}
	opts := engine.Options{
		Project: name, Stack: o.req.Stack, Backend: o.req.Backend, Crypter: o.req.Crypter,
		SecretsProvider: o.req.SecretsProvider, Config: cfg, Parallel: o.req.StepParallel,
		Events: o.engineEvents(), Lock: o.req.Lock, Refresh: o.req.RefreshFirst,
		EngineVersion: o.req.EngineVersion,
		References:    o.references, Plan: o.req.Plans[name], Dir: dir,
		LoadPlugin: o.req.LoadPlugin, LoadParameterized: o.req.LoadParameterized, ReferenceCrypter: o.req.ReferenceCrypter,
	}
	if o.stackLock != nil {
		opts.Held = []backend.Lock{o.stackLock}
	}
	if o.req.Plugins != nil {
		opts.Plugins = o.req.Plugins()
	}
	switch o.req.Operation {
	case Preview, Up:
		if p.Hosted != nil {
			opts.Hosted, opts.Upstream = p.Hosted, o.upstream(name)
		} else if p.Program == nil {
			return nil, "", fmt.Errorf("%s %q: the project has no program yet", o.req.Operation, name)
		}
		if o.req.Operation == Preview {
			res, err := engine.Preview(ctx, opts, p.Program)
			return res, "", err
		}
		res, err := engine.Up(ctx, opts, p.Program)
		if err != nil || p.OnSuccess == nil {
			return res, "", err
		}
		return res, "", o.hook(ctx, p, res)
	case Refresh, Destroy:
		snap, err := o.req.Backend.Load(ctx, name, o.req.Stack, o.req.Crypter)
		if err != nil {
			return nil, "", fmt.Errorf("%s %q: %w", o.req.Operation, name, err)
		}
		if !hasResources(snap) && (snap == nil || len(snap.PendingOperations) == 0) {
			return &engine.Result{}, fmt.Sprintf("nothing to %s: the project has no resources on stack %s", o.req.Operation, o.req.Stack), nil
		}
		if o.req.Operation == Refresh {
			res, err := engine.Refresh(ctx, opts)
			return res, "", err
		}
		res, err := engine.Destroy(ctx, opts)
		return res, "", err
	}
	return nil, "", fmt.Errorf("unknown operation %q", o.req.Operation)
}

// references gives a project's engine the outputs of the projects this
// operation ran before it: for a preview the planned ones (unknown values
// resource.Computed), for an up those it just produced. A project outside
// the run (--target) is not known here, so its stored snapshot is read.
func (o *run) references(project string) (resource.PropertyMap, bool) {
	if !o.include[project] {
		return nil, false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	outs, ok := o.outputs[project]
	return outs, ok
}

// hook runs the project's on_success hook.
func (o *run) hook(ctx context.Context, p *Project, res *engine.Result) error {
	w := lines.NewWriter(func(line string) {
		o.emit(event.Event{Type: event.Log, Project: p.Name, Message: line})
	})
	err := p.OnSuccess(ctx, HookInput{Project: p.Name, Stack: o.req.Stack, Outputs: res.Outputs,
		Config: o.req.Config, Env: o.req.Env, Log: w})
	w.Flush()
	if err != nil {
		return fmt.Errorf("up %q: the on_success hook failed: %w", p.Name, err)
	}
	return nil
}

// engineEvents translates the engine's events into runner events.
func (o *run) engineEvents() func(engine.Event) {
	return func(e engine.Event) {
		ev := event.Event{Time: e.Time, Stack: e.Stack, Project: e.Project, Op: string(e.Op), URN: string(e.URN),
			Resource: e.ResourceType, Keys: e.Keys, DurationMS: e.Duration.Milliseconds(), Message: e.Message, Error: e.Error}
		switch e.Type {
		case engine.EventStepStart:
			ev.Type = event.StepStart
		case engine.EventStepDone:
			ev.Type = event.StepDone
		case engine.EventStepFailed:
			ev.Type = event.StepFailed
		case engine.EventDiagnostic, engine.EventPendingOperation:
			ev.Type = event.Log
			if e.Severity == engine.SeverityWarning || e.Severity == engine.SeverityError || e.Type == engine.EventPendingOperation {
				ev.Type = event.Warning
			}
			if e.Severity == engine.SeverityError {
				ev.Severity = event.SeverityError
			}
		default:
			return
		}
		o.emit(ev)
	}
}

// finish reports skipped and cancelled projects and the summary.
func (o *run) finish(ctx context.Context, outcomes map[string]walk.Outcome) (*Summary, error) {
	names := make([]string, 0, len(outcomes))
	for n := range outcomes {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return o.order[names[i]] < o.order[names[j]] })
	sum := &Summary{Outputs: o.outputs, Plans: o.plans}
	// cancelled: not started; interrupted: started, then cancelled
	// (unsaved: those whose state was not saved).
	var failed, skipped, cancelled, interrupted, unsaved []string
	var causes []error
	for _, n := range names {
		out := outcomes[n]
		switch out.Status {
		case walk.Skipped:
			msg := o.walked[out.Cause] + " failed"
			o.emit(event.Event{Type: event.ProjectSkipped, Operation: o.req.Operation, Stack: o.req.Stack, Project: n,
				Result: walk.Skipped.String(), Message: msg})
			o.rows[n] = &event.Row{Project: n, Operation: o.req.Operation, Result: walk.Skipped.String(), Error: "skipped: " + msg}
			skipped = append(skipped, n)
		case walk.Cancelled:
			if _, ran := o.rows[n]; !ran {
				o.rows[n] = &event.Row{Project: n, Operation: o.req.Operation, Result: walk.Cancelled.String()}
				cancelled = append(cancelled, n) // not started
			}
		case walk.Failed:
			if o.rows[n].Result == walk.Cancelled.String() {
				interrupted = append(interrupted, n)
				if ns := (*engine.NotSavedError)(nil); errors.As(out.Err, &ns) {
					unsaved = append(unsaved, n)
				}
			} else {
				failed = append(failed, n)
				causes = append(causes, out.Err)
			}
		}
		sum.Rows = append(sum.Rows, *o.rows[n])
	}
	result, err := "succeeded", error(nil)
	switch {
	case len(failed) > 0:
		result = "failed"
		err = failedErr(fmt.Sprintf("%s: %s failed%s", o.req.Operation, plural(failed), skippedNote(skipped, cancelled)), causes)
	case len(cancelled) > 0 || len(interrupted) > 0 || ctx.Err() != nil:
		result = "cancelled"
		err = fmt.Errorf("%s was interrupted%s; %s: %w", o.req.Operation, skippedNote(skipped, cancelled), savedNote(unsaved), context.Canceled)
	case len(skipped) > 0:
		result = "failed"
		err = fmt.Errorf("%s: %s skipped: %w", o.req.Operation, plural(skipped), ErrFailed)
	}
	sum.Failed = err != nil
	o.result = result
	o.emit(event.Event{Type: event.Summary, Operation: o.req.Operation, Stack: o.req.Stack, Result: result, Projects: sum.Rows})
	return sum, err
}

// failedError is the error of a run in which projects failed. It wraps
// ErrFailed and, when every failed project met a lock held by another
// operation, their *backend.LockedError: then the whole run failed only
// because the stack was busy, and a caller may wait and try again. When
// every failed project lacked provider config or had it refused, it wraps
// their *resource.MissingConfigError or *resource.ConfigureError the same
// way (a validation error: exit 3), as it does when every one named a
// plugin that cannot be had (*resource.UnavailablePluginError).
type failedError struct {
	msg    string
	causes []error
}

func (e *failedError) Error() string   { return e.msg + ": " + ErrFailed.Error() }
func (e *failedError) Unwrap() []error { return append([]error{ErrFailed}, e.causes...) }

// failedErr builds the error of a run whose failed projects failed with
// causes. It keeps the causes only when all of them are of one kind a
// caller acts on (every one a held lock, or every one provider config
// missing or refused), so that one real failure among them is an ordinary
// failure.
func failedErr(msg string, causes []error) error {
	var held, missing int
	for _, c := range causes {
		var l *backend.LockedError
		var m *resource.MissingConfigError
		var r *resource.ConfigureError
		var p *resource.UnavailablePluginError
		switch {
		case errors.As(c, &l):
			held++
		case errors.As(c, &m), errors.As(c, &r), errors.As(c, &p):
			missing++
		}
	}
	if n := len(causes); n > 0 && (held == n || missing == n) {
		return &failedError{msg: msg, causes: causes}
	}
	return &failedError{msg: msg}
}

func plural(names []string) string {
	if len(names) == 1 {
		return "project " + names[0]
	}
	return "projects " + strings.Join(names, ", ")
}

func skippedNote(skipped, cancelled []string) string {
	var parts []string
	if len(skipped) > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", len(skipped)))
	}
	if len(cancelled) > 0 {
		parts = append(parts, fmt.Sprintf("%d not started", len(cancelled)))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// savedNote says which projects' state an interrupted run saved: every
// one's but unsaved's, whose steps their journals keep.
func savedNote(unsaved []string) string {
	if len(unsaved) == 0 {
		return "the state of every project was saved"
	}
	keeps := "its journal keeps its steps"
	if len(unsaved) > 1 {
		keeps = "their journals keep their steps"
	}
	return fmt.Sprintf("the state of %s was not saved (%s, which the next run folds in); that of every other project was saved", strings.Join(unsaved, ", "), keeps)
}

// Display returns v for showing to people: secrets as "[secret]", unknown
// values as "[unknown]", assets, archives and resource references as their
// short forms ("asset(text, sha256:0123abcd…)"). It never returns
// plaintext of a secret.
func Display(v any) any {
	return resource.Map(v, func(x any) (any, bool) {
		switch y := x.(type) {
		case resource.Secret:
			return "[secret]", true
		case resource.Computed:
			return "[unknown]", true
		case resource.Asset:
			return y.String(), true
		case resource.Archive:
			return y.String(), true
		case resource.ResourceReference:
			return y.String(), true
		}
		return nil, false
	})
}

// upstream returns the projects name depends on, transitively: those its
// program may read by stack reference.
func (o *run) upstream(name string) map[string]bool {
	out := map[string]bool{}
	var visit func(string)
	visit = func(n string) {
		p := o.byName[n]
		if p == nil {
			return
		}
		for _, dep := range p.DependsOn {
			if !out[dep] {
				out[dep] = true
				visit(dep)
			}
		}
	}
	visit(name)
	for n := range o.byName {
		if _, ok := out[n]; !ok && n != name {
			out[n] = false // of the environment, not upstream
		}
	}
	return out
}
