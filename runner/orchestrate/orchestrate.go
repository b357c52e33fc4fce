// Package orchestrate runs one operation (preview, up, refresh, destroy)
// across a provider's project graph: each project through the engine,
// independent projects in parallel up to a bound, dependents of a failure
// skipped, destroy in reverse order, and every step reported as an event.
package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/walk"
	"github.com/runnerhq/runner/runner/event"
)

// The operations.
const (
	Preview = "preview"
	Up      = "up"
	Refresh = "refresh"
	Destroy = "destroy"
)

// Project is one project of the graph, as the orchestrator needs it.
type Project struct {
	Name      string
	DependsOn []string
	// Program declares the project's resources (preview, up).
	Program engine.Program
	// Hosted, instead of Program, is a user's program run by its language
	// runtime (preview, up).
	Hosted source.Hosted
	// Config, when not nil, is the project's own stack config (a user
	// project's: the shared config, its Pulumi.<stack>.yaml and its
	// Pulumi.yaml defaults), instead of Request.Config.
	Config map[string]any
	// Dir, when set, is the project's folder: relative file assets resolve
	// against it instead of Request.Dir.
	Dir string
	// OnSuccess runs after a successful up of the project; its error fails
	// the project.
	OnSuccess func(ctx context.Context, in HookInput) error
}

// HookInput is what an on_success hook receives.
type HookInput struct {
	Project string
	Stack   string
	// Outputs are the project's outputs; secrets are resource.Secret.
	Outputs resource.PropertyMap
	// Config is the stack config ("namespace:key" -> value, secrets as resource.Secret).
	Config map[string]any
	// Env is the environment runner and its children run with.
	Env map[string]string
	// Log writes lines into the project's block of the output.
	Log io.Writer
}

// Request is one operation across the graph.
type Request struct {
	Operation string
	Stack     string
	// Projects in declaration order (of the projects ready at once, the
	// first declared starts first). They form a graph validated where it
	// was built: names unique, dependencies declared, no cycle.
	Projects []Project
	// Targets restricts the run to these projects (empty: all).
	Targets []string
	// Parallel bounds the projects in flight (0: all that are ready).
	Parallel int
	// StepParallel bounds the steps in flight of each project in flight
	// (0: engine.DefaultParallel), so up to Parallel x StepParallel plugin
	// calls run at once.
	StepParallel int
	// FailFast stops starting projects after the first failure.
	FailFast bool
	// RefreshFirst reads every resource back before a preview or an up plans.
	RefreshFirst bool
	// Plans, when not nil, makes an up execute these plans (a preview's
	// Summary.Plans), one per project of the run: see checkPlans.
	Plans map[string]*engine.Plan

	// Dir is the workspace: relative file assets resolve against it.
	Dir     string
	Backend backend.Backend
	Plugins func() []resource.Plugin
	// LoadPlugin finds a plugin by package and version that Plugins does
	// not serve (engine.Options.LoadPlugin; nil: none).
	LoadPlugin func(ctx context.Context, pkg, version, downloadURL string) (resource.Plugin, error)
	// LoadParameterized loads a parameterized package's plugin
	// (engine.Options.LoadParameterized; nil: none).
	LoadParameterized func(ctx context.Context, pz resource.Parameterization, downloadURL string) (resource.Plugin, error)
	Crypter           resource.Crypter
	SecretsProvider   *state.SecretsProvider
	// ReferenceCrypter is engine.Options.ReferenceCrypter (other stacks).
	ReferenceCrypter func(ctx context.Context, project, stack string) (resource.Crypter, error)
	Config           map[string]any
	Env              map[string]string
	Lock             backend.LockInfo
	// EngineVersion is recorded in the snapshots written ("": "dev").
	EngineVersion string
	Events        event.Sink
}

// Summary is how the operation ended.
type Summary struct {
	Rows []event.Row
	// Outputs holds each successful project's outputs; for a preview, the
	// planned ones, unknown values as resource.Computed.
	Outputs map[string]resource.PropertyMap
	// Failed is set when any project failed, was skipped or was cancelled.
	Failed bool
	// Plans holds, for a preview, each successful project's plan: what an
	// up given them in Request.Plans executes.
	Plans map[string]*engine.Plan
}

// ErrFailed is returned (wrapped) when a project failed.
var ErrFailed = errors.New("the operation failed")

// Run executes the operation and returns its summary. The error is nil
// when every project succeeded; otherwise it wraps ErrFailed (or
// context.Canceled) and names the failed projects.
func Run(ctx context.Context, req Request) (*Summary, error) {
	o, err := newRun(req)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	ctx, unlock, err := o.lockStack(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := o.checkPlans(ctx); err != nil {
		return nil, err
	}
	if err := o.checkUpstreamDeployed(ctx); err != nil {
		return nil, err
	}
	if err := o.checkDownstreamDestroyed(ctx); err != nil {
		return nil, err
	}
	o.emit(event.Event{Type: event.OperationStart, Operation: req.Operation, Stack: req.Stack,
		Message: o.startMessage()})
	outcomes, err := o.walk(ctx)
	if err != nil {
		return nil, err
	}
	sum, err := o.finish(ctx, outcomes)
	o.recordRun(ctx, start, sum, o.result)
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, backend.ErrLockLost) {
		err = fmt.Errorf("%w; %w", cause, err)
	}
	return sum, err
}

// walk runs the included projects, each after its upstream projects (for
// destroy: after its downstream ones), and returns each one's outcome.
func (o *run) walk(ctx context.Context) (map[string]walk.Outcome, error) {
	id := make(map[string]int, len(o.include))
	for _, p := range o.req.Projects { // declaration order: the walk's tie order
		if o.include[p.Name] {
			id[p.Name] = len(o.walked)
			o.walked = append(o.walked, p.Name)
		}
	}
	deps := make([][]int, len(o.walked))
	for i, name := range o.walked {
		for _, d := range o.byName[name].DependsOn {
			if j, ok := id[d]; ok {
				deps[i] = append(deps[i], j)
			}
		}
	}
	res, err := walk.Walk(ctx, deps, walk.Options{Parallel: o.parallel(), FailFast: o.req.FailFast, Reverse: o.req.Operation == Destroy},
		func(ctx context.Context, v int) error { return o.runProject(ctx, o.walked[v]) })
	var cyc *walk.CycleError
	if errors.As(err, &cyc) {
		names := make([]string, len(cyc.Vertices))
		for i, v := range cyc.Vertices {
			names[i] = o.walked[v]
		}
		return nil, fmt.Errorf("%s: the projects %s can never start: they are in or behind a dependency cycle (build the graph with runner/graph, which refuses cycles)", o.req.Operation, strings.Join(names, ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.req.Operation, err)
	}
	outcomes := make(map[string]walk.Outcome, len(o.walked))
	for i, out := range res.Outcomes {
		outcomes[o.walked[i]] = out
	}
	return outcomes, nil
}

// run holds one orchestration's state.
type run struct {
	req     Request
	byName  map[string]*Project
	order   map[string]int
	include map[string]bool
	walked  []string // the included projects by walk vertex
	// stackLock is the stack's own lock, held by up, refresh and destroy
	// (nil: none): every step of every project confirms it (engine
	// Options.Held).
	stackLock backend.Lock
	// result is how the run ended (finish): succeeded, failed or cancelled.
	result string

	mu      sync.Mutex
	rows    map[string]*event.Row
	outputs map[string]resource.PropertyMap
	plans   map[string]*engine.Plan
}

func newRun(req Request) (*run, error) {
	switch req.Operation {
	case Preview, Up, Refresh, Destroy:
	default:
		return nil, fmt.Errorf("unknown operation %q", req.Operation)
	}
	if req.Backend == nil {
		return nil, errors.New("the orchestrator needs a backend")
	}
	o := &run{req: req, byName: map[string]*Project{}, order: map[string]int{},
		include: map[string]bool{}, rows: map[string]*event.Row{}, outputs: map[string]resource.PropertyMap{},
		plans: map[string]*engine.Plan{}}
	names := make([]string, len(req.Projects))
	for i := range req.Projects {
		p := &req.Projects[i]
		o.byName[p.Name] = p
		o.order[p.Name] = i
		names[i] = p.Name
	}
	if err := CheckTargets(names, req.Targets); err != nil {
		return nil, err
	}
	for _, name := range names {
		o.include[name] = len(req.Targets) == 0
	}
	for _, t := range req.Targets {
		o.include[t] = true
	}
	return o, nil
}

// CheckTargets returns an *UnknownTargetError for the first of targets that
// is not one of projects.
func CheckTargets(projects, targets []string) error {
	for _, t := range targets {
		found := false
		for _, p := range projects {
			found = found || p == t
		}
		if !found {
			return &UnknownTargetError{Target: t, Known: projects}
		}
	}
	return nil
}

// UnknownTargetError is a --target naming no project of the provider.
type UnknownTargetError struct {
	Target string
	Known  []string
}

func (e *UnknownTargetError) Error() string {
	return fmt.Sprintf("--target %q names no project of this provider; its projects are: %s", e.Target, strings.Join(e.Known, ", "))
}

func (o *run) parallel() int {
	if o.req.Parallel > 0 {
		return o.req.Parallel
	}
	return max(1, o.included())
}

// included counts the projects the run includes (include holds every
// project of the provider, false for those outside the targets).
func (o *run) included() int {
	n := 0
	for _, in := range o.include {
		if in {
			n++
		}
	}
	return n
}

func (o *run) startMessage() string {
	n := o.included()
	word := "projects"
	if n == 1 {
		word = "project"
	}
	if len(o.req.Targets) > 0 {
		return fmt.Sprintf("%d %s targeted (%s)", n, word, strings.Join(o.req.Targets, ", "))
	}
	return fmt.Sprintf("%d %s", n, word)
}

// checkUpstreamDeployed refuses an up of targets whose upstream projects
// outside the targets were never deployed: their outputs would be missing.
// A preview refuses as the up would, so that it never lists what up will
// not do.
func (o *run) checkUpstreamDeployed(ctx context.Context) error {
	if len(o.req.Targets) == 0 || (o.req.Operation != Up && o.req.Operation != Preview) {
		return nil
	}
	var missing []string
	seen := map[string]bool{}
	for _, t := range o.req.Targets {
		for _, d := range o.byName[t].DependsOn {
			if o.include[d] || seen[d] {
				continue
			}
			seen[d] = true
			snap, err := o.req.Backend.Load(ctx, d, o.req.Stack, o.req.Crypter)
			if err != nil {
				return fmt.Errorf("checking the upstream project %s of the targets: %w", d, err)
			}
			if !hasResources(snap) {
				missing = append(missing, fmt.Sprintf("%s (needed by %s)", d, t))
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return &UndeployedUpstreamError{Stack: o.req.Stack, Missing: missing}
	}
	return nil
}

// UndeployedUpstreamError names upstream projects of --target projects that
// were never deployed on the stack.
type UndeployedUpstreamError struct {
	Stack   string
	Missing []string
}

func (e *UndeployedUpstreamError) Error() string {
	return fmt.Sprintf("these upstream projects were never deployed on stack %s: %s; deploy them first (add them with --target, or run up without --target)",
		e.Stack, strings.Join(e.Missing, ", "))
}

func hasResources(snap *state.Snapshot) bool {
	return snap != nil && len(snap.Resources) > 0
}

func (o *run) emit(e event.Event) {
	if o.req.Events == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	o.req.Events.Emit(e)
}
