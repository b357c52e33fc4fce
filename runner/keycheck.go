package runner

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/runner/orchestrate"
)

// The passphrase's key takes a core a quarter of a second or more to
// derive (PBKDF2, a million rounds). A preview or up whose projects are all
// programs run by language hosts derives it while the hosts start: a
// program's calls reach the engine only once the passphrase is checked, so
// nothing changes before (a declarative program, Pulumi YAML, starts
// meanwhile; any other only once it is checked). Every other operation
// checks it first, as before.

// keyCheckWaits reports whether the operation may start before the
// passphrase is checked: a preview or up, without --refresh (which reads
// and records resources before any program runs), of a provider whose
// every project is a hosted program (hosted: the runtimes of the run).
func (s *Session) keyCheckWaits(o OpOptions, hosted map[string]source.Hosted) bool {
	if o.Operation != orchestrate.Preview && o.Operation != orchestrate.Up || o.Refresh {
		return false
	}
	for _, name := range s.Graph.Order() {
		if hosted[name] == nil {
			return false
		}
	}
	return true
}

// afterKeyCheck returns the runtimes with each program gated on the
// passphrase check of c: the engine serves its calls once c is checked,
// and fails the run with the check's error, which sets shown (the run's
// summary shows that project's failure).
func afterKeyCheck(hosted map[string]source.Hosted, c *config.Crypter, shown *atomic.Bool) map[string]source.Hosted {
	out := make(map[string]source.Hosted, len(hosted))
	for name, h := range hosted {
		g := keyGated{Hosted: h, c: c, shown: shown}
		if l, ok := h.(source.PackageLister); ok {
			out[name] = keyGatedLister{keyGated: g, lister: l}
			continue
		}
		out[name] = g
	}
	return out
}

// keyGated is a program whose calls reach the engine only once the
// passphrase is checked (source.Gated).
type keyGated struct {
	source.Hosted
	c     *config.Crypter
	shown *atomic.Bool
}

var _ source.Gated = keyGated{}

// Gate waits for the passphrase check and returns its error.
func (g keyGated) Gate(ctx context.Context) error {
	if err := g.c.Wait(ctx); err != nil {
		if ctx.Err() == nil {
			g.shown.Store(true)
		}
		return err
	}
	return nil
}

// Declarative says whether the program may start before the check (its
// calls waiting for it): see source.Declarative.
func (g keyGated) Declarative() bool {
	d, ok := g.Hosted.(source.Declarative)
	return ok && d.Declarative()
}

// DialsLocal says whether the program's host may be given a Unix
// socket's address: see source.LocalDialer.
func (g keyGated) DialsLocal() bool {
	l, ok := g.Hosted.(source.LocalDialer)
	return ok && l.DialsLocal()
}

// UnknownsAbsent says how the program's SDK reads a stack output left out
// of a preview's stack reference: see source.UnknownsAbsent.
func (g keyGated) UnknownsAbsent() bool {
	u, ok := g.Hosted.(source.UnknownsAbsent)
	return ok && u.UnknownsAbsent()
}

// keyGatedLister is keyGated for a runtime that lists the plugins its
// program needs: the listing does not wait for the check.
type keyGatedLister struct {
	keyGated
	lister source.PackageLister
}

// RequiredPackages lists the plugins the program needs.
func (g keyGatedLister) RequiredPackages(ctx context.Context, req source.RunRequest) ([]source.Package, error) {
	return g.lister.RequiredPackages(ctx, req)
}

// Release releases what RequiredPackages left running when no Run follows.
func (g keyGatedLister) Release(req source.RunRequest) {
	if r, ok := g.lister.(source.Releaser); ok {
		r.Release(req)
	}
}

// keyChecked ends an operation that may have started before the
// passphrase was checked: when the check failed, with its error (a
// validation error naming the passphrase's source) whatever else failed.
// It is printed unless the run's summary already showed it as a
// project's failure.
func (s *Session) keyChecked(sum *orchestrate.Summary, err error) (*orchestrate.Summary, error) {
	if s.crypter == nil {
		return sum, err
	}
	kerr := s.crypter.Wait(context.Background())
	switch {
	case kerr == nil:
		return sum, err
	case errors.Is(err, orchestrate.ErrFailed) && s.keyShown.Load():
		return nil, &ReportedError{Err: kerr}
	}
	return nil, kerr
}
