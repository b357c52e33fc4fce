package pluginhost

import (
	"context"
	"fmt"
	"net"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/runnerhq/runner/engine/resource"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/types/known/emptypb"
)

// LogEntry is a message a plugin logged through the engine callback
// service (Pulumi's Engine.Log).
type LogEntry struct {
	// Severity is "debug", "info", "warning" or "error".
	Severity string
	// Message is the text logged.
	Message string
	// URN is the resource the message is about ("" for none): the caller
	// routes the message to the project in it.
	URN resource.URN
	// StreamID groups messages that belong together (0 for none).
	StreamID int32
	// Ephemeral messages are progress that need not be kept.
	Ephemeral bool
}

// engineServer serves Pulumi's Engine callback service and grpc health to
// the plugins of one pool, on 127.0.0.1.
type engineServer struct {
	pulumirpc.UnimplementedEngineServer
	log    func(LogEntry)
	srv    *grpc.Server
	health *health.Server
	addr   string
}

// startEngine starts the callback server on a free loopback port.
func startEngine(log func(LogEntry)) (*engineServer, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("could not listen for plugin callbacks: %w", err)
	}
	e := &engineServer{log: log, srv: grpc.NewServer(ServerOptions(8)...), health: health.NewServer(), addr: lis.Addr().String()}
	pulumirpc.RegisterEngineServer(e.srv, e)
	// Plugins check the engine's health every few minutes and stop on any
	// error: keep it serving for the pool's whole life.
	e.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(e.srv, e.health)
	go func() { _ = e.srv.Serve(lis) }() // returns when stopped
	return e, nil
}

// stop stops the server, waiting up to 5 s for calls in flight.
func (e *engineServer) stop() {
	e.health.Shutdown()
	done := make(chan struct{})
	go func() { e.srv.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		e.srv.Stop()
	}
}

var severities = map[pulumirpc.LogSeverity]string{
	pulumirpc.LogSeverity_DEBUG:   "debug",
	pulumirpc.LogSeverity_INFO:    "info",
	pulumirpc.LogSeverity_WARNING: "warning",
	pulumirpc.LogSeverity_ERROR:   "error",
}

// Log hands a plugin's message to the pool's log function.
func (e *engineServer) Log(_ context.Context, req *pulumirpc.LogRequest) (*emptypb.Empty, error) {
	sev, ok := severities[req.GetSeverity()]
	if !ok {
		sev = "info"
	}
	if e.log != nil {
		e.log(LogEntry{Severity: sev, Message: req.GetMessage(), URN: resource.URN(req.GetUrn()),
			StreamID: req.GetStreamId(), Ephemeral: req.GetEphemeral()})
	}
	return &emptypb.Empty{}, nil
}

// GetRootResource answers that there is no root resource (it is for
// language hosts).
func (e *engineServer) GetRootResource(context.Context, *pulumirpc.GetRootResourceRequest) (*pulumirpc.GetRootResourceResponse, error) {
	return &pulumirpc.GetRootResourceResponse{}, nil
}

// SetRootResource accepts and ignores a root resource.
func (e *engineServer) SetRootResource(context.Context, *pulumirpc.SetRootResourceRequest) (*pulumirpc.SetRootResourceResponse, error) {
	return &pulumirpc.SetRootResourceResponse{}, nil
}

// RequirePulumiVersion accepts any version range: the runner speaks the
// protocol of the Pulumi version its proto package comes from, and a plugin
// that needs more fails on the call it cannot make.
func (e *engineServer) RequirePulumiVersion(context.Context, *pulumirpc.RequirePulumiVersionRequest) (*pulumirpc.RequirePulumiVersionResponse, error) {
	return &pulumirpc.RequirePulumiVersionResponse{}, nil
}
