// Command langhost is a test-only Pulumi language host for the nodejs and
// go runtimes, so that the Pulumi CLI can run the TypeScript and Go test
// programs where Pulumi's own pulumi-language-nodejs and pulumi-language-go
// cannot be had (the Go module proxy does not serve their modules). It
// serves Pulumi's LanguageRuntime protocol and runs the program with
// runner's own launchers (projects/runtime: node on @pulumi/pulumi's run
// script, the Go program built then run), against the Pulumi CLI's
// ResourceMonitor. It is not Pulumi's host: what it shows is that the
// Pulumi engine, fed the same program through the same SDK, decides the
// same steps on the state runner wrote (and the reverse), not that
// Pulumi's hosts launch programs as runner does.
//
// The Pulumi CLI starts it as pulumi-language-<runtime> with the engine's
// address as its last argument; it prints its port and serves until the
// CLI ends it.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/projects/pulumiproject"
	"github.com/runnerhq/runner/projects/runtime"
)

func main() {
	engine := ""
	for _, a := range os.Args[1:] {
		if !strings.HasPrefix(a, "-") {
			engine = a
		}
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "langhost:", err)
		os.Exit(1)
	}
	srv := grpc.NewServer()
	pulumirpc.RegisterLanguageRuntimeServer(srv, &host{engine: engine})
	fmt.Printf("%d\n", lis.Addr().(*net.TCPAddr).Port)
	if err := srv.Serve(lis); err != nil {
		fmt.Fprintln(os.Stderr, "langhost:", err)
		os.Exit(1)
	}
}

// host is the LanguageRuntime service: Run runs the program; the plugins
// it needs are left to the engine, which loads them when the program's
// registrations name them.
type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	engine string
}

func (h *host) Handshake(_ context.Context, req *pulumirpc.LanguageHandshakeRequest) (*pulumirpc.LanguageHandshakeResponse, error) {
	if req.GetEngineAddress() != "" {
		h.engine = req.GetEngineAddress()
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: "3.246.0"}, nil
}

func (h *host) GetRequiredPlugins(context.Context, *pulumirpc.GetRequiredPluginsRequest) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *host) GetRequiredPackages(context.Context, *pulumirpc.GetRequiredPackagesRequest) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

// Run runs the program of the project in the request's root directory
// once; a program that fails answers with its error.
func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	root := req.GetInfo().GetRootDirectory()
	if root == "" {
		root = req.GetPwd()
	}
	p, err := pulumiproject.Load(root)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	hosted, err := runtime.For(p, runtime.Options{CacheDir: filepath.Join(os.TempDir(), "runner-langhost-builds")})
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	err = hosted.Run(ctx, source.RunRequest{
		MonitorAddress: req.GetMonitorAddress(), EngineAddress: h.engine,
		Project: req.GetProject(), Stack: req.GetStack(), Organization: req.GetOrganization(),
		Pwd: req.GetPwd(), Program: req.GetProgram(), Config: req.GetConfig(), ConfigSecretKeys: req.GetConfigSecretKeys(),
		DryRun: req.GetDryRun(), Parallel: req.GetParallel(), Stdout: os.Stdout, Stderr: os.Stderr,
	})
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}
