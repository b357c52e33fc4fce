package source

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/walk"
)

// providerTypePrefix starts the type token of every provider resource.
const providerTypePrefix = "pulumi:providers:"

// ErrStepFailed is what a source returns when it stopped because a
// registration's step failed: the engine reports the step's own error.
var ErrStepFailed = errors.New("a step failed")

// Program is a compiled-in Go program as a source: it runs the program to
// collect its declarations, then registers each declared resource once
// the resources it depends on have been answered (at most Parallel at
// once), and finally the stack outputs.
type Program struct {
	Prog program.Program
	Env  program.Env
	// Parallel bounds how many registrations are in flight at once.
	Parallel int
}

// Run runs the program and feeds its declarations to sink.
func (p *Program) Run(ctx context.Context, sink Sink) error {
	ds, err := program.Run(ctx, p.Env, p.Prog)
	if err != nil {
		return err
	}
	list := ds.List()
	if err := checkProviderOptions(list); err != nil {
		return err
	}
	deps := make([][]int, len(list))
	regs := make([]Registration, len(list))
	stamp := make([]int, len(list)) // stamp[j] == i+1: j is already a wait of i
	for i := range list {
		if deps[i], err = p.registration(ds, i, &regs[i], stamp); err != nil {
			return err
		}
	}
	if err := sink.Preflight(ctx, preflight(list)); err != nil {
		return err
	}
	if err := p.walk(ctx, sink, ds, regs, deps); err != nil {
		return err
	}
	outputs, err := ds.Outputs()
	if err != nil {
		return err
	}
	return sink.RegisterOutputs(ctx, list[0].URN, outputs)
}

// registration fills the registration of declaration i (all but its
// inputs and explicit provider reference, known only once its
// dependencies are answered) and returns the declarations it waits for.
func (p *Program) registration(ds *program.Declarations, i int, reg *Registration, stamp []int) ([]int, error) {
	r := &ds.List()[i]
	*reg = Registration{
		URN: r.URN, Type: r.Type, Name: r.Name, Custom: r.Custom,
		Protect: r.Protect, DeleteBeforeReplace: r.DeleteBeforeReplace, DeleteBeforeReplaceSet: r.DeleteBeforeReplaceSet,
		RetainOnDelete: r.RetainOnDelete, IgnoreChanges: r.IgnoreChanges, AdditionalSecretOutputs: r.AdditionalSecretOutputs,
		ImportID: r.ImportID, Timeouts: state.CustomTimeouts(r.Timeouts),
	}
	if i == 0 {
		return nil, nil
	}
	rd, err := ds.Dependencies(i)
	if err != nil {
		return nil, err
	}
	reg.Dependencies, reg.PropertyDependencies = rd.URNs, rd.Properties
	waits := make([]int, 0, len(rd.Waits)+2)
	add := func(j int) {
		if j != i && stamp[j] != i+1 {
			stamp[j] = i + 1
			waits = append(waits, j)
		}
	}
	if r.Parent >= 0 {
		reg.Parent = ds.List()[r.Parent].URN
		add(r.Parent)
	}
	for _, w := range rd.Waits {
		add(w)
	}
	if r.Provider >= 0 {
		add(r.Provider)
	}
	return waits, nil
}

// walk registers the declarations in dependency order and records each
// answer in the declarations, for the Outputs that read it.
func (p *Program) walk(ctx context.Context, sink Sink, ds *program.Declarations, regs []Registration, deps [][]int) error {
	list := ds.List()
	ids := make([]string, len(list))
	records := make([]Recorder, len(list))
	step := func(ctx context.Context, r *Registration) (Recorder, error) {
		ans, err := sink.Register(ctx, r)
		return answered(ans), err
	}
	if s, ok := sink.(SerialSink); ok {
		step = s.Step
	}
	failed := false
	w, err := walk.Walk(ctx, deps, walk.Options{
		Parallel: p.Parallel,
		FailFast: true,
		Done: func(i int, err error) { // on the walk's goroutine, one at a time
			failed = failed || err != nil
			var ans Answer
			if records[i] != nil {
				ans = records[i].Record()
			}
			if err != nil {
				ds.Finish(i, "", false, nil, err)
				return
			}
			ids[i] = ans.ID
			ds.FinishOutputs(i, ans.ID, ans.IDKnown, ans.Outputs, ans.Absent)
		},
	}, func(ctx context.Context, i int) error {
		reg := &regs[i]
		if i > 0 {
			reg.Inputs, reg.InputsErr = ds.Inputs(i)
		}
		if j := list[i].Provider; j >= 0 {
			reg.Provider = string(list[j].URN) + "::" + ids[j]
		}
		var err error
		records[i], err = step(ctx, reg)
		return err
	})
	if err != nil { // the declarations are acyclic: a bug
		return err
	}
	for i, o := range w.Outcomes {
		if o.Status != walk.Succeeded && o.Status != walk.Failed {
			ds.Finish(i, "", false, nil, ErrNotAttempted)
		}
	}
	switch {
	case failed:
		return ErrStepFailed
	case w.Canceled:
		return ctx.Err()
	}
	return nil
}

// preflight lists the declared URNs and the packages whose default
// providers the program uses, in order of first use.
func preflight(list []program.Declaration) Preflight {
	pf := Preflight{URNs: make([]resource.URN, len(list))}
	seen := map[string]bool{}
	for i := range list {
		r := &list[i]
		pf.URNs[i] = r.URN
		switch {
		case !r.Custom || r.Provider >= 0:
		case strings.HasPrefix(r.Type, providerTypePrefix):
			pf.Explicit = append(pf.Explicit, Package{Name: strings.TrimPrefix(r.Type, providerTypePrefix), For: "the provider " + string(r.URN)})
		case !seen[resource.Package(r.Type)]:
			seen[resource.Package(r.Type)] = true
			pf.Packages = append(pf.Packages, Package{Name: resource.Package(r.Type), For: fmt.Sprintf("type %s of %s", r.Type, r.URN)})
		}
	}
	return pf
}

// checkProviderOptions refuses, before any step runs, a Provider option
// that does not name a provider of the resource's own package.
func checkProviderOptions(list []program.Declaration) error {
	var errs []error
	for i := range list {
		r := &list[i]
		if r.Provider < 0 {
			continue
		}
		if r.Provider >= i {
			errs = append(errs, fmt.Errorf("%s names as its provider a resource declared after it; declare the provider first", r.URN))
			continue
		}
		p := &list[r.Provider]
		switch {
		case !r.Custom:
			errs = append(errs, fmt.Errorf("%s is a component, so it takes no Provider option (it names %s); give the option to its custom resources", r.URN, p.URN))
		case strings.HasPrefix(r.Type, providerTypePrefix):
			errs = append(errs, fmt.Errorf("%s is a provider, so it takes no Provider option (it names %s)", r.URN, p.URN))
		case !p.Custom || !strings.HasPrefix(p.Type, providerTypePrefix):
			errs = append(errs, fmt.Errorf("%s names %s as its provider, which is not a provider resource: a provider's type is %s<package>", r.URN, p.URN, providerTypePrefix))
		case strings.TrimPrefix(p.Type, providerTypePrefix) != resource.Package(r.Type):
			errs = append(errs, fmt.Errorf("%s, of package %q, names %s as its provider, a provider of package %q; a resource's provider must be of its own package",
				r.URN, resource.Package(r.Type), p.URN, strings.TrimPrefix(p.Type, providerTypePrefix)))
		}
	}
	return errors.Join(errs...)
}

// answered is an answer already recorded (a Sink that is not a SerialSink).
type answered Answer

// Record returns the answer.
func (a answered) Record() Answer { return Answer(a) }
