package plugins

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
)

// Main runs the fake provider plugin of pkg ("aws" or "kubernetes") as
// Pulumi's engine starts one: it listens on a local port, prints it as the
// first line of stdout and serves until SIGINT or SIGTERM. Its arguments
// (the engine address, logging flags) are ignored: it never calls the
// engine. It exits 1 when it cannot start.
func Main(pkg string) {
	if err := serve(pkg); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-resource-%s (fake): %v\n", pkg, err)
		os.Exit(1)
	}
}

// NewProvider returns the fake provider of pkg, for Pulumi's provider server.
func NewProvider(pkg string) (plugin.Provider, error) {
	c, err := LoadContract(pkg)
	if err != nil {
		return nil, err
	}
	p := &provider{contract: c}
	switch pkg {
	case "aws":
		p.cloud = &awsCloud{contract: c}
	case "digitalocean":
		p.cloud = &doCloud{tokenCloud{contract: c, env: "DIGITALOCEAN_TOKEN"}}
	case "linode":
		p.cloud = &linodeCloud{tokenCloud{contract: c, env: "LINODE_TOKEN"}}
	default:
		p.cloud = &kubeCloud{contract: c}
	}
	return p, nil
}

// serve serves the provider of pkg until a stop signal.
func serve(pkg string) error {
	prov, err := NewProvider(pkg)
	if err != nil {
		return err
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen on a local port: %w", err)
	}
	const limit = 400 << 20 // the engine's message size limit
	srv := grpc.NewServer(grpc.MaxRecvMsgSize(limit), grpc.MaxSendMsgSize(limit))
	pulumirpc.RegisterResourceProviderServer(srv, plugin.NewProviderServer(prov))
	fmt.Println(lis.Addr().(*net.TCPAddr).Port)
	failed := make(chan error, 1)
	go func() { failed <- srv.Serve(lis) }()
	select {
	case err := <-failed:
		return fmt.Errorf("serve gRPC: %w", err)
	case <-stop:
	}
	go func() {
		time.Sleep(3 * time.Second)
		srv.Stop()
	}()
	srv.GracefulStop()
	return nil
}
