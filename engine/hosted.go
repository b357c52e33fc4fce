package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

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
}

// Run serves the monitor, makes sure the plugins the program names can be
// had (before anything changes), and runs the program.
func (h *hostedSource) Run(ctx context.Context, _ source.Sink) error {
	d := h.d
	d.sem = make(chan struct{}, d.opts.parallel()) // the program does not bound its registrations
	srv, err := monitor.Start(d, monitor.Info{Project: d.opts.Project, Stack: d.opts.Stack, DryRun: d.DryRun})
	if err != nil {
		return err
	}
	defer srv.Close()
	req, err := d.runRequest(srv.Addr())
	if err != nil {
		return err
	}
	out := lines.NewWriter(func(line string) { d.Events.Diag(SeverityInfo, d.maskConfig(line)) })
	defer out.Flush()
	req.Stdout, req.Stderr = out, out
	if lister, ok := h.hosted.(source.PackageLister); ok {
		if err := d.requirePlugins(ctx, lister, req); err != nil {
			return err
		}
	}
	return h.hosted.Run(ctx, req)
}

// requirePlugins finds (or installs) every plugin the program names, and
// fails naming all that cannot be had.
func (d *deployment) requirePlugins(ctx context.Context, lister source.PackageLister, req source.RunRequest) error {
	pkgs, err := lister.RequiredPackages(ctx, req)
	if err != nil {
		return fmt.Errorf("listing the plugins the program needs: %w", err)
	}
	var errs []error
	for _, p := range pkgs {
		if p.Name == "pulumi" {
			continue
		}
		if _, err := d.Plugin(ctx, p.Name, p.Version, p.Server); err != nil {
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
	p, err := d.DefaultProviderFor(ctx, pkg.Name, pkg.Version, pkg.Server)
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
