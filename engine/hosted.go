package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/runnerhq/runner/engine/monitor"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/stepgen"
	"github.com/runnerhq/runner/internal/lines"
)

// hostedSource runs a program through its language runtime (Options.Hosted)
// against a ResourceMonitor the engine serves for the operation.
type hostedSource struct {
	hosted source.Hosted
	d      *deployment // set by execute

	// Set by begin: the monitor's port, the run's request, and the
	// packages the program lists (closed once listed).
	lis    net.Listener
	local  net.Listener // a Unix socket for a source.LocalDialer, or nil
	req    source.RunRequest
	out    *lines.Writer
	listed chan struct{}
	pkgs   []source.Package
	pkgErr error
	ran    bool
	// stopping counts the host stops handed to the engine (stopLater),
	// which end waits for.
	stopping sync.WaitGroup
}

// stopLater runs stop (the program's host ending, once its program
// ended) in the background, so that the state is saved meanwhile instead
// of after the process has exited; end waits for it.
func (h *hostedSource) stopLater(stop func()) {
	h.stopping.Add(1)
	go func() {
		defer h.stopping.Done()
		stop()
	}()
}

// begin opens the monitor's port and, for a runtime that lists its
// packages, starts its host and asks for them while the operation locks
// and reads the stack: the program's host starts in parallel with that
// instead of after it. Asking runs nothing of the program and changes
// nothing; end releases what began when the program did not run.
func (h *hostedSource) begin(ctx context.Context, d *deployment) error {
	lis, err := monitor.Listen()
	if err != nil {
		return err
	}
	addr := lis.Addr().String()
	if l, ok := h.hosted.(source.LocalDialer); ok && l.DialsLocal() {
		if local, localAddr, err := monitor.ListenLocal(); err == nil {
			h.local, addr = local, localAddr // else the port serves it
		}
	}
	req, err := d.runRequest(addr)
	if err != nil {
		h.closeListeners(lis)
		return err
	}
	// The host's own output goes to the project's log from its start.
	h.out = lines.NewWriter(func(line string) { d.Events.Diag(SeverityInfo, monitor.Unserved(d.maskConfig(line))) })
	req.Stdout, req.Stderr = h.out, h.out
	h.lis, h.req, h.listed = lis, req, make(chan struct{})
	lister, ok := h.hosted.(source.PackageLister)
	if !ok {
		close(h.listed)
		return nil
	}
	go func() {
		defer close(h.listed)
		h.pkgs, h.pkgErr = lister.RequiredPackages(ctx, req)
	}()
	// Let the host start now (until it waits for the process), not once
	// the busy cores (the passphrase's key, the state being read) give
	// the new goroutine its turn: up to tens of milliseconds later.
	runtime.Gosched()
	return nil
}

// end waits for the host's stop handed to the engine (stopLater) when
// the program ran, and releases the port and the runtime's host when it
// did not.
func (h *hostedSource) end() {
	h.stopping.Wait()
	if h.lis == nil {
		return
	}
	if h.ran {
		h.out.Flush() // what the host printed while it stopped
		return
	}
	h.closeListeners(h.lis)
	<-h.listed
	if r, ok := h.hosted.(source.Releaser); ok {
		r.Release(h.req)
	}
	h.out.Flush()
}

func (h *hostedSource) closeListeners(lis net.Listener) {
	lis.Close()
	if h.local != nil {
		h.local.Close()
	}
}

// Run serves the monitor, makes sure the plugins the program names can be
// had and the runtime's gate is passed (before anything changes), and runs
// the program. A declarative program (source.Declarative) starts at once,
// its calls waiting for that: its host's own start-up work (reading the
// program again, loading schemas) overlaps with the checks.
func (h *hostedSource) Run(ctx context.Context, _ source.Sink) error {
	d := h.d
	if h.lis == nil {
		if err := h.begin(ctx, d); err != nil {
			return err
		}
	}
	h.ran = true
	d.sem = make(chan struct{}, d.opts.parallel()) // the program does not bound its registrations
	g := newGate(d)
	var also []net.Listener
	if h.local != nil {
		also = append(also, h.local)
	}
	srv := monitor.StartOn(h.lis, g, monitor.Info{Project: d.opts.Project, Stack: d.opts.Stack, DryRun: d.DryRun}, also...)
	defer srv.Close()
	defer h.out.Flush()
	if dp, ok := h.hosted.(source.Declarative); !ok || !dp.Declarative() {
		err := h.ready(ctx)
		g.open(err)
		if err != nil {
			return err
		}
		return h.hosted.Run(ctx, h.req)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- h.hosted.Run(runCtx, h.req) }()
	err := h.ready(ctx)
	g.open(err)
	if err != nil {
		cancel()
		<-ran
		return err
	}
	return <-ran
}

// ready returns once the program may reach the engine: the plugins it
// names can be had, and its runtime's gate (source.Gated) is passed.
func (h *hostedSource) ready(ctx context.Context) error {
	if _, ok := h.hosted.(source.PackageLister); ok {
		<-h.listed
		if err := h.d.requirePlugins(ctx, h.pkgs, h.pkgErr); err != nil {
			if r, ok := h.hosted.(source.Releaser); ok {
				r.Release(h.req)
			}
			return err
		}
	}
	if g, ok := h.hosted.(source.Gated); ok {
		return g.Gate(ctx)
	}
	return nil
}

// requirePlugins finds (or installs) every plugin the program names, and
// fails naming all that cannot be had.
func (d *deployment) requirePlugins(ctx context.Context, pkgs []source.Package, err error) error {
	if err != nil {
		return fmt.Errorf("listing the plugins the program needs: %w", err)
	}
	var errs []error
	for _, p := range pkgs {
		if p.Name == "pulumi" {
			continue
		}
		if _, err := d.PackagePlugin(ctx, p.Name, p.Version, p.Server, p.Param); err != nil {
			errs = append(errs, err)
			continue
		}
		d.startDefaultProvider(ctx, p)
	}
	return errors.Join(errs...)
}

// startDefaultProvider starts the plugin process of a package's default
// provider while the program starts, as Pulumi's engine loads a program's
// plugins before running it: its first resource then does not wait for the
// process. Nothing is checked or configured yet; the provider's step still
// runs when the first resource that uses it is registered.
func (d *deployment) startDefaultProvider(ctx context.Context, pkg source.Package) {
	p, err := d.DefaultProviderFor(ctx, pkg.Name, pkg.Version, pkg.Server, pkg.Param)
	if err != nil {
		return // the first resource of the package meets the error
	}
	s, ok := p.Configurable.(resource.Starter)
	if !ok {
		return
	}
	if news, err := d.gen.ProviderNews(p); err == nil {
		s.Start(p.URN, news)
	}
}

// runRequest is what the program's run gets: the services' address, the
// project, and the stack config in Pulumi's wire form (secrets in plain
// text, named in ConfigSecretKeys).
func (d *deployment) runRequest(addr string) (source.RunRequest, error) {
	req := source.RunRequest{
		MonitorAddress: addr, EngineAddress: addr, LoaderAddress: addr,
		Project: d.opts.Project, Stack: d.opts.Stack, Organization: d.organization(),
		Pwd: d.opts.Dir, DryRun: d.DryRun, Parallel: int32(d.opts.parallel()),
		Config: make(map[string]string, len(d.opts.Config)),
	}
	for k, v := range d.opts.Config {
		if resource.ContainsComputed(v) {
			continue // a value not known yet (a preview of a value an earlier project makes)
		}
		s, err := stepgen.ConfigString(v)
		if err != nil {
			return req, err
		}
		if sec, ok := s.(resource.Secret); ok {
			req.ConfigSecretKeys = append(req.ConfigSecretKeys, k)
			s = sec.Element
		}
		req.Config[k], _ = s.(string)
	}
	sort.Strings(req.ConfigSecretKeys)
	return req, nil
}

// organization is the organization of stack references' names.
func (d *deployment) organization() string {
	if d.opts.Organization != "" {
		return d.opts.Organization
	}
	return "organization"
}

// maskConfig masks the secret config values in a line of program output.
func (d *deployment) maskConfig(line string) string {
	return runstate.Redact(line, resource.PropertyMap(d.opts.Config))
}

// Log records a message of the program in the project's log.
func (d *deployment) Log(severity, message string, urn resource.URN) {
	switch severity {
	case "debug":
		return
	case "warning":
		severity = SeverityWarning
	case "error":
		severity = SeverityError
	default:
		severity = SeverityInfo
	}
	message = d.maskConfig(strings.TrimRight(message, "\n"))
	d.Events.Emit(Event{Type: EventDiagnostic, Severity: severity, Message: message, URN: urn})
}
