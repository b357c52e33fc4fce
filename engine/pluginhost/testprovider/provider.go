package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// version is the plugin version GetPluginInfo reports.
const version = "1.2.3"

// provider is the testprov provider: the plugin.Provider that Pulumi's
// provider server calls.
type provider struct {
	plugin.UnimplementedProvider

	flags flags

	mu         sync.Mutex
	engineAddr string            // the engine's address, from argv or Handshake
	engine     *grpc.ClientConn  // the connection for Log, made on first use
	store      string            // the configured store directory ("" before Configure)
	param      *parameterization // set by Parameterize
	inFlight   int               // resource calls running now
	maxSeen    int               // the most resource calls seen running at once

	cancelOnce sync.Once
	cancelled  chan struct{} // closed by Cancel and on shutdown
}

// newProvider returns a provider that logs to the engine at engineAddr.
func newProvider(engineAddr string, f flags) *provider {
	return &provider{flags: f, engineAddr: engineAddr, cancelled: make(chan struct{})}
}

// Handshake answers the secrets and resources flags of the environment, or
// Unimplemented in the legacy flow (TESTPROV_LEGACY=1).
func (p *provider) Handshake(
	_ context.Context, req plugin.ProviderHandshakeRequest,
) (*plugin.ProviderHandshakeResponse, error) {
	if p.flags.legacy {
		return nil, status.Error(codes.Unimplemented, "testprov: Handshake is off (TESTPROV_LEGACY=1)")
	}
	if req.EngineAddress != "" {
		p.mu.Lock()
		if p.engineAddr != req.EngineAddress && p.engine != nil {
			_ = p.engine.Close()
			p.engine = nil
		}
		p.engineAddr = req.EngineAddress
		p.mu.Unlock()
	}
	return &plugin.ProviderHandshakeResponse{
		AcceptSecrets:   p.flags.acceptSecrets,
		AcceptResources: p.flags.acceptResources,
		AcceptOutputs:   p.flags.acceptOutputs,
	}, nil
}

// GetPluginInfo reports version 1.2.3.
func (p *provider) GetPluginInfo(context.Context) (plugin.PluginInfo, error) {
	v := semver.MustParse(version)
	return plugin.PluginInfo{Version: &v}, nil
}

// SignalCancellation aborts every running sleepMs and hang, and those that
// start later.
func (p *provider) SignalCancellation(context.Context) error {
	p.cancelAll()
	return nil
}

// cancelAll closes the cancelled channel once.
func (p *provider) cancelAll() {
	p.cancelOnce.Do(func() { close(p.cancelled) })
}

// Close is called by nothing over gRPC; it closes the engine connection.
func (p *provider) Close() error {
	p.closeEngine()
	return nil
}

// closeEngine closes the connection to the engine, if one was made.
func (p *provider) closeEngine() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.engine != nil {
		_ = p.engine.Close()
		p.engine = nil
	}
}

// storeDir returns the configured store directory, or an error saying
// Configure must come first.
func (p *provider) storeDir(method string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.store == "" {
		return "", status.Errorf(codes.FailedPrecondition,
			"testprov: %s before Configure: the provider has no store directory yet", method)
	}
	return p.store, nil
}

// enter counts a resource call in flight, records the most seen at once in
// <store>/maxInFlight, and returns the function that ends the call.
func (p *provider) enter() (leave func()) {
	p.mu.Lock()
	p.inFlight++
	newMax := p.inFlight > p.maxSeen
	if newMax {
		p.maxSeen = p.inFlight
		if p.store != "" {
			if err := recordMax(p.store, p.maxSeen); err != nil {
				fmt.Fprintf(os.Stderr, "testprov: %v\n", err)
			}
		}
	}
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		p.inFlight--
		p.mu.Unlock()
	}
}

// log sends one message to the engine's Log service (best effort: a failure
// is written to stderr). Without an engine address it writes to stderr.
func (p *provider) log(sev pulumirpc.LogSeverity, urn resource.URN, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	conn, err := p.engineConn()
	if err != nil || conn == nil {
		fmt.Fprintf(os.Stderr, "%s: %s\n", sev, msg)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = pulumirpc.NewEngineClient(conn).Log(ctx, &pulumirpc.LogRequest{
		Severity: sev, Message: msg, Urn: string(urn),
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "testprov: log to the engine: %v (message: %s)\n", err, msg)
	}
}

// engineConn returns the connection to the engine, made on first use; nil
// when there is no engine address.
func (p *provider) engineConn() (*grpc.ClientConn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.engine != nil || p.engineAddr == "" {
		return p.engine, nil
	}
	conn, err := grpc.NewClient(p.engineAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(streamWindow), grpc.WithInitialConnWindowSize(connWindow))
	if err != nil {
		return nil, fmt.Errorf("connect to the engine at %s: %w", p.engineAddr, err)
	}
	p.engine = conn
	return conn, nil
}
