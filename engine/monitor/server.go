// Package monitor serves a program run by a language runtime the engine
// side of Pulumi's protocol, on one loopback listener per project run:
// the ResourceMonitor (registrations, reads, invokes), the Engine (logs,
// the root resource), gRPC health and the schema Loader. Each request is
// translated into a call on the operation's Deployment.
package monitor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	codegenrpc "github.com/pulumi/pulumi/sdk/v3/proto/go/codegen"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/runnerhq/runner/engine/pluginhost"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
)

// Deployment is the operation the monitor serves.
type Deployment interface {
	source.Sink
	// ReadResource reads an existing resource (a stack reference, a
	// resource's get) and answers with its outputs.
	ReadResource(ctx context.Context, req ReadRequest) (source.Answer, error)
	// Invoke calls a function of a package (a data source) or of the
	// built-in pulumi package.
	Invoke(ctx context.Context, req InvokeRequest) (InvokeResult, error)
	// Log records a message of the program (severity "debug", "info",
	// "warning" or "error"; urn "" for none).
	Log(severity, message string, urn resource.URN)
	// Schema returns the schema of a package, as its plugin gives it (or
	// the built-in pulumi package's).
	// A parameterized package's (pz not nil) is its base plugin's,
	// parameterized.
	Schema(ctx context.Context, pkg, version, downloadURL string, pz *resource.Parameterization) ([]byte, error)
	// Construct constructs a multi-language (remote) component through
	// its package's provider.
	Construct(ctx context.Context, req ConstructRequest) (resource.ConstructResponse, error)
	// Call calls a method of a multi-language component through its
	// package's provider.
	Call(ctx context.Context, req CallRequest) (resource.CallResponse, error)
}

// ReadRequest reads an existing resource into the program.
type ReadRequest struct {
	URN                        resource.URN
	Type, Name, ID             string
	Parent                     resource.URN
	Inputs                     resource.PropertyMap
	Dependencies               []resource.URN
	Provider                   string
	Version, PluginDownloadURL string
	AdditionalSecretOutputs    []string
	// Parameterization is that of the registered package the read names
	// (nil: none).
	Parameterization *resource.Parameterization
}

// InvokeRequest calls a function.
type InvokeRequest struct {
	Token                      string
	Args                       resource.PropertyMap
	Provider                   string
	Version, PluginDownloadURL string
	// Parameterization is that of the registered package the invoke
	// names (nil: none).
	Parameterization *resource.Parameterization
}

// InvokeResult is a function's result, or why it refused its arguments.
type InvokeResult struct {
	Return   resource.PropertyMap
	Failures []resource.CheckFailure
}

// Info describes the run the monitor serves.
type Info struct {
	Project, Stack string
	DryRun         bool
}

// maxMessage is the largest gRPC message accepted and sent, as Pulumi's.
const maxMessage = 400 << 20

// Server is a running monitor.
type Server struct {
	lis  net.Listener
	grpc *grpc.Server
	done chan struct{}
	tf   *transforms // closed with the server: its connections to the program's callbacks
}

// Listen opens the loopback port the services will be served on: a
// program's host can be started with its address before the services are
// (StartOn), its calls waiting until they are.
func Listen() (net.Listener, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on a loopback port for the program's resource monitor: %w", err)
	}
	return lis, nil
}

// ListenLocal opens a Unix socket the services will also be served on
// (StartOn), for a program's host known to dial one (source.LocalDialer):
// a call on it costs less CPU than on loopback TCP. On Linux it is in the
// abstract namespace, so no file is left behind, and it is open to the
// machine's local users as the loopback port is; elsewhere, an error (the
// caller keeps the port). addr is its gRPC address.
func ListenLocal() (lis net.Listener, addr string, err error) {
	if runtime.GOOS != "linux" {
		return nil, "", errors.New("no abstract Unix sockets on " + runtime.GOOS)
	}
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, "", err
	}
	name := "runner-monitor-" + hex.EncodeToString(b[:])
	if lis, err = net.Listen("unix", "@"+name); err != nil {
		return nil, "", fmt.Errorf("listening on a Unix socket for the program's resource monitor: %w", err)
	}
	return lis, "unix-abstract:" + name, nil
}

// Start serves d on a new loopback port until Close.
func Start(d Deployment, info Info) (*Server, error) {
	lis, err := Listen()
	if err != nil {
		return nil, err
	}
	return StartOn(lis, d, info), nil
}

// StartOn serves d on lis (from Listen), and on also (from ListenLocal),
// until Close, which closes them.
func StartOn(lis net.Listener, d Deployment, info Info, also ...net.Listener) *Server {
	opts := append(pluginhost.ServerOptions(16), grpc.MaxRecvMsgSize(maxMessage), grpc.MaxSendMsgSize(maxMessage))
	srv := grpc.NewServer(opts...)
	m := &monitor{d: d, info: info, addr: lis.Addr().String(), tf: &transforms{}}
	pulumirpc.RegisterResourceMonitorServer(srv, m)
	pulumirpc.RegisterEngineServer(srv, &engineService{d: d})
	codegenrpc.RegisterLoaderServer(srv, &loader{d: d})
	h := health.NewServer()
	healthpb.RegisterHealthServer(srv, h)
	s := &Server{lis: lis, grpc: srv, done: make(chan struct{}), tf: m.tf}
	var serving sync.WaitGroup
	for _, l := range append([]net.Listener{lis}, also...) {
		serving.Go(func() { _ = srv.Serve(l) }) // ends with Close
	}
	go func() {
		serving.Wait()
		close(s.done)
	}()
	return s
}

// Addr is the address the services listen on (127.0.0.1:port).
func (s *Server) Addr() string { return s.lis.Addr().String() }

// Close stops serving; calls in flight are ended, and the connections to
// the program's callbacks closed.
func (s *Server) Close() {
	s.grpc.Stop()
	<-s.done
	s.tf.close()
}
