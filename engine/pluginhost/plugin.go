package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/runnerhq/runner/engine/plugincache"
	"github.com/runnerhq/runner/engine/resource"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// maxMessage is the gRPC message size limit both ways: provider schemas
// and large resources exceed gRPC's 4 MiB default (Pulumi uses 400 MiB).
const maxMessage = 400 << 20

// connectTimeout bounds the dial and the handshake of a started plugin.
var connectTimeout = 10 * time.Second

// plugin is one plugin process with its connection. It serves one
// configuration, or none yet (a spare started for CheckConfig, claimed by
// the first configuration that needs a process). It implements
// resource.Plugin once configured.
type plugin struct {
	pool            *Pool
	pkg, version    string
	key             string            // the configuration's key, guarded by pool.mu; "" for a spare
	launchID        string            // launchHash of its PULUMI_CONFIG: a spare serves only that configuration
	param           *Parameterization // nil: the plugin serves its own package
	ready           chan struct{}
	startErr        error
	proc            *process
	cc              *grpc.ClientConn
	rpc             pulumirpc.ResourceProviderClient
	handshake       bool // false: a legacy plugin, its flags come from Configure
	hs              *pulumirpc.ProviderHandshakeResponse
	acceptSecrets   bool // these four are set by Configure
	acceptResources bool
	acceptOutputs   bool // output values in Construct and Call
	supportsPreview bool

	closeOnce  sync.Once
	cfgOnce    sync.Once
	configured chan struct{}
	cfgErr     error
}

func newPlugin(pool *Pool, pkg, version, key string) *plugin {
	return &plugin{pool: pool, pkg: pkg, version: version, key: key,
		ready: make(chan struct{}), configured: make(chan struct{})}
}

// start launches the process and connects to it; ready is closed after.
func (p *plugin) start(ctx context.Context, l launch) {
	defer close(p.ready)
	proc, port, err := startProcess(ctx, l)
	if err != nil {
		p.startErr = err
		p.pool.startFailed(p.pkg, p.version, err)
		return
	}
	p.proc = proc
	// A plugin that exits while runner dials it will never answer: stop
	// waiting for the connection at once instead of at connectTimeout.
	connCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-proc.exited:
			cancel()
		case <-connCtx.Done():
		}
	}()
	if err := p.connect(connCtx, port, l); err != nil {
		if d := proc.died("start-up", 0); d != nil {
			err = d
		}
		if p.cc != nil {
			p.cc.Close()
		}
		proc.stop(context.Background(), 0)
		p.startErr = err
		p.pool.startFailed(p.pkg, p.version, err)
		return
	}
	if l.debug != nil {
		l.debug(fmt.Sprintf("plugin %s[%d] (%s) serves on port %d", p.pkg, proc.pid, l.path, port))
	}
}

// connect dials the plugin, shakes hands and asks its version.
func (p *plugin) connect(ctx context.Context, port int, l launch) error {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	cc, err := grpc.NewClient(fmt.Sprintf("127.0.0.1:%d", port), append(dialOptions(),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage)))...)
	if err != nil {
		return fmt.Errorf("could not connect to the %s plugin (%s): %w", p.pkg, l.path, err)
	}
	p.cc, p.rpc = cc, pulumirpc.NewResourceProviderClient(cc)
	cc.Connect()
	for s := cc.GetState(); s != connectivity.Ready; s = cc.GetState() {
		if !cc.WaitForStateChange(ctx, s) {
			return fmt.Errorf("the %s plugin (%s) did not accept a connection on port %d within %s", p.pkg, l.path, port, connectTimeout)
		}
	}
	if err := p.shakeHands(ctx, l); err != nil {
		return err
	}
	info, err := p.rpc.GetPluginInfo(ctx, &emptypb.Empty{})
	if err != nil && status.Code(err) != codes.Unimplemented {
		return fmt.Errorf("the %s plugin (%s) did not say its version: %s", p.pkg, l.path, status.Convert(err).Message())
	}
	have, name, want := info.GetVersion(), p.pkg, p.version
	if p.param != nil {
		name, want = p.param.Base, p.param.BaseVersion
	}
	if c, err := plugincache.CompareVersions(have, want); err == nil && c < 0 {
		p.pool.log(LogEntry{Severity: "warning", Message: fmt.Sprintf(
			"the %s plugin (%s) is version %s, older than the %s asked for", name, l.path, have, want)})
	}
	if p.param != nil {
		return p.parameterize(ctx, l.path)
	}
	return nil
}

// shakeHands sends Handshake until the plugin answers (it doubles as the
// liveness probe); a plugin that does not implement it is a legacy one.
func (p *plugin) shakeHands(ctx context.Context, l launch) error {
	dir := filepath.Dir(l.path)
	req := &pulumirpc.ProviderHandshakeRequest{EngineAddress: l.engineAddr, RootDirectory: &dir,
		ProgramDirectory: &dir, ConfigureWithUrn: true}
	for {
		resp, err := p.rpc.Handshake(ctx, req)
		switch status.Code(err) {
		case codes.OK:
			p.handshake, p.hs = true, resp
			return nil
		case codes.Unimplemented:
			return nil
		case codes.Unavailable:
			select {
			case <-time.After(10 * time.Millisecond):
				continue
			case <-ctx.Done():
			}
		}
		return fmt.Errorf("the %s plugin (%s) failed its handshake: %s", p.pkg, l.path, status.Convert(err).Message())
	}
}

// wait waits for the plugin to be started.
func (p *plugin) wait(ctx context.Context) error {
	select {
	case <-p.ready:
		return p.startErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitConfigured waits for the plugin's Configure to finish, or for ctx
// to be done (the Configure goes on for other callers).
func (p *plugin) waitConfigured(ctx context.Context) error {
	select {
	case <-p.configured:
		return p.cfgErr
	case <-ctx.Done():
		return fmt.Errorf("stopped waiting for the %s plugin to be configured: %w", p.pkg, ctx.Err())
	}
}

// callError turns the error of a call into one a user can act on: the
// plugin's death with its last output lines, missing config keys, or the
// plugin's message.
func (p *plugin) callError(ctx context.Context, op string, urn resource.URN, err error) error {
	code := status.Code(err)
	if p.proc != nil {
		wait := time.Duration(0)
		if ctx.Err() == nil && (code == codes.Unavailable || code == codes.Canceled || code == codes.Internal) {
			wait = time.Second // the connection may break before the exit is seen
		}
		if d := p.proc.died(op, wait); d != nil {
			return outcomeUnknown{d}
		}
	}
	st := status.Convert(err)
	for _, d := range st.Details() {
		if mk, ok := d.(*pulumirpc.ConfigureErrorMissingKeys); ok {
			return missingConfig(p.pkg, mk)
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("the %s plugin's %s of %s was interrupted: %w", p.pkg, op, urn, ctx.Err())
	}
	return fmt.Errorf("the %s plugin's %s of %s failed: %s", p.pkg, op, urn, p.pool.redact.apply(st.Message()))
}

// mutationError is the error of a Create, Update or Delete that changes
// the world: one cut off by its deadline or a cancellation, or failing with
// Internal or DataLoss, may have made the change, so it matches
// resource.ErrOutcomeUnknown and the engine keeps the operation pending.
// Pulumi also reads Unknown so; runner does not, because Pulumi's provider
// server gives every plain error of a provider that code: an API's refusal
// of a create would leave a pending operation to resolve by hand.
func (p *plugin) mutationError(ctx context.Context, op string, urn resource.URN, err error) error {
	e := p.callError(ctx, op, urn, err)
	var mc *resource.MissingConfigError
	if errors.Is(e, resource.ErrOutcomeUnknown) || errors.As(e, &mc) {
		return e
	}
	switch status.Code(err) {
	case codes.Internal, codes.DataLoss, codes.DeadlineExceeded, codes.Canceled:
		return outcomeUnknown{e}
	}
	if ctx.Err() != nil {
		return outcomeUnknown{e}
	}
	return e
}

// outcomeUnknown is the error of a call whose plugin died before answering:
// it matches resource.ErrOutcomeUnknown, so that the engine keeps a create,
// update or delete pending and reads it back on the next run.
type outcomeUnknown struct{ error }

func (outcomeUnknown) Is(target error) bool { return target == resource.ErrOutcomeUnknown }

func (o outcomeUnknown) Unwrap() error { return o.error }

// closeDown cancels the plugin's work, closes its connection and ends its
// process group (SIGINT, then SIGKILL after killGrace or when ctx is done),
// once: later calls return at once.
func (p *plugin) closeDown(ctx context.Context) {
	p.closeOnce.Do(func() { p.close(ctx) })
}

func (p *plugin) close(ctx context.Context) {
	<-p.ready
	if p.startErr != nil {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	_, _ = p.rpc.Cancel(cctx, &emptypb.Empty{}) // advisory
	cancel()
	p.cc.Close()
	p.proc.stop(ctx, killGrace)
}

// cancel asks the plugin to stop its work in flight (Pulumi's Cancel);
// Unimplemented is tolerated.
func (p *plugin) cancel(ctx context.Context) error {
	select {
	case <-p.ready:
	default:
		return nil // still starting: it has no work in flight
	}
	if p.startErr != nil || p.exited() {
		return nil
	}
	_, err := p.rpc.Cancel(ctx, &emptypb.Empty{})
	if err == nil || status.Code(err) == codes.Unimplemented || errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return fmt.Errorf("the %s plugin did not accept the cancellation: %s", p.pkg, status.Convert(err).Message())
}
