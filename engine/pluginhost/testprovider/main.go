// Command pulumi-resource-testprov is a real Pulumi resource provider plugin
// for runner's tests: package testprov, version 1.2.3, served over gRPC with
// Pulumi's own provider server (plugin.NewProviderServer). Its "cloud" is a
// directory (the provider's `store` config key) holding one JSON file per
// resource, so tests can read, edit and delete what it created.
//
// The engine starts it with the engine's gRPC address as the only positional
// argument; it listens on 127.0.0.1:0, prints the port as the first stdout
// line and serves until SIGINT or SIGTERM. Environment variables inject
// start-up faults (TESTPROV_START_DELAY, TESTPROV_BAD_START) and select the
// protocol flavour (TESTPROV_LEGACY, TESTPROV_ACCEPT_SECRETS,
// TESTPROV_ACCEPT_RESOURCES); README.md lists them all.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
)

// maxMessageSize is the largest gRPC message the server receives, the same
// 400 MiB limit the engine dials with.
const maxMessageSize = 400 << 20

// The flow-control windows of the plugin's connections (the engine's
// calls, and its own Log calls to the engine), fixed as the engine's own:
// large for this protocol's messages, they turn off gRPC's bandwidth
// probing (a ping, and its answer, per burst of data). With a pool of
// stream workers (each call's handler on a goroutine whose stack has
// grown), they cut the plugin's CPU per call (docs/benchmarks.md, YAML1000).
const (
	streamWindow = 1 << 20
	connWindow   = 4 << 20
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "testprov: %v\n", err)
		os.Exit(1)
	}
}

// run serves the provider until a stop signal, after the start-up faults the
// environment asks for.
func run() error {
	engineAddr, err := engineAddress(os.Args[1:])
	if err != nil {
		return err
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)

	if err := startFaults(stop); err != nil {
		return err
	}
	defer profile(os.Getenv("TESTPROV_CPUPROFILE"))()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen on a local port: %w", err)
	}
	prov := newProvider(engineAddr, flagsFromEnv())
	srv := grpc.NewServer(grpc.MaxRecvMsgSize(maxMessageSize), grpc.MaxSendMsgSize(maxMessageSize),
		grpc.NumStreamWorkers(16), grpc.InitialWindowSize(streamWindow), grpc.InitialConnWindowSize(connWindow))
	pulumirpc.RegisterResourceProviderServer(srv, &server{
		ResourceProviderServer: plugin.NewProviderServer(prov),
		flags:                  prov.flags,
	})
	fmt.Printf("%d\n", lis.Addr().(*net.TCPAddr).Port)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve gRPC: %w", err)
	case <-stop:
	}
	prov.cancelAll()
	gracefulStop(srv, 3*time.Second)
	prov.closeEngine()
	return nil
}

// gracefulStop stops srv after its calls finish, or at once after limit.
func gracefulStop(srv *grpc.Server, limit time.Duration) {
	done := make(chan struct{})
	go func() {
		srv.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(limit):
		srv.Stop()
	}
}

// engineAddress returns the engine address among the plugin's arguments: the
// one positional argument, after the flags Pulumi's engine may pass
// (--logtostderr, -v=N, --tracing <endpoint>). No positional argument means
// no engine to call back (""); more than one is an error.
func engineAddress(args []string) (string, error) {
	var positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--tracing" || a == "-tracing":
			i++ // its value
		case strings.HasPrefix(a, "-"):
		default:
			positional = append(positional, a)
		}
	}
	switch len(positional) {
	case 0:
		return "", nil
	case 1:
		return positional[0], nil
	}
	return "", fmt.Errorf("expected at most one argument, the engine address; got %q", positional)
}

// startFaults applies TESTPROV_START_DELAY and TESTPROV_BAD_START: a delay
// before the port is printed, or a start that never prints a port.
func startFaults(stop <-chan os.Signal) error {
	if d := os.Getenv("TESTPROV_START_DELAY"); d != "" {
		delay, err := time.ParseDuration(d)
		if err != nil {
			return fmt.Errorf("TESTPROV_START_DELAY=%q is not a duration (e.g. 500ms): %w", d, err)
		}
		time.Sleep(delay)
	}
	switch bad := os.Getenv("TESTPROV_BAD_START"); bad {
	case "":
		return nil
	case "noport":
		fmt.Fprintln(os.Stderr, "testprov: failing to start on purpose (TESTPROV_BAD_START=noport)")
		os.Exit(1)
	case "garbage":
		fmt.Println("hello world")
		<-stop
		os.Exit(1)
	default:
		return fmt.Errorf("TESTPROV_BAD_START=%q: want noport or garbage", bad)
	}
	return nil
}

// server is Pulumi's provider server with the legacy Configure flags taken
// from the environment: Pulumi's server always answers accept_secrets and
// accept_resources from its Handshake state, which a legacy engine never set.
type server struct {
	pulumirpc.ResourceProviderServer
	flags flags
}

// Configure configures the provider and answers the flags of the
// environment, which the legacy flow (no Handshake) reads here.
func (s *server) Configure(ctx context.Context, req *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	resp, err := s.ResourceProviderServer.Configure(ctx, req)
	if err != nil {
		return nil, err
	}
	resp.AcceptSecrets = s.flags.acceptSecrets
	resp.AcceptResources = s.flags.acceptResources
	resp.AcceptOutputs = s.flags.acceptOutputs
	return resp, nil
}

// flags are the protocol choices the environment makes.
type flags struct {
	legacy, acceptSecrets, acceptResources, acceptOutputs bool
}

// flagsFromEnv reads TESTPROV_LEGACY, TESTPROV_ACCEPT_SECRETS,
// TESTPROV_ACCEPT_RESOURCES and TESTPROV_ACCEPT_OUTPUTS.
func flagsFromEnv() flags {
	return flags{
		legacy:          os.Getenv("TESTPROV_LEGACY") == "1",
		acceptSecrets:   os.Getenv("TESTPROV_ACCEPT_SECRETS") != "false",
		acceptResources: os.Getenv("TESTPROV_ACCEPT_RESOURCES") != "false",
		acceptOutputs:   os.Getenv("TESTPROV_ACCEPT_OUTPUTS") != "false",
	}
}

// profile writes a CPU profile of the plugin's run to <prefix>.<pid> when
// prefix is set (TESTPROV_CPUPROFILE: each plugin process has its own
// file); a profile that cannot start is reported on stderr.
func profile(prefix string) (stop func()) {
	if prefix == "" {
		return func() {}
	}
	f, err := os.Create(prefix + "." + strconv.Itoa(os.Getpid()))
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "testprov: TESTPROV_CPUPROFILE: not profiling: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
