package monitor

import (
	"context"

	codegenrpc "github.com/pulumi/pulumi/sdk/v3/proto/go/codegen"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/runnerhq/runner/engine/resource"
)

// loader is Pulumi's schema Loader, which the YAML host asks for the
// schema of every package its program uses.
type loader struct {
	codegenrpc.UnimplementedLoaderServer
	d Deployment
}

// GetSchema returns a package's schema. For a parameterized package,
// package and version name the base plugin, and the parameterization the
// package it is made to serve (as the YAML host asks, from its
// packages' declarations).
func (l *loader) GetSchema(ctx context.Context, req *codegenrpc.GetSchemaRequest) (*codegenrpc.GetSchemaResponse, error) {
	pkg, version := req.GetPackage(), req.GetVersion()
	var pz *resource.Parameterization
	if pr := req.GetParameterization(); pr != nil {
		if pr.GetName() == "" || pr.GetVersion() == "" || semver(pr.GetVersion()) != nil {
			return nil, status.Errorf(codes.InvalidArgument,
				"package %s: its parameterization needs a name and a semantic version (got %q, %q)", pkg, pr.GetName(), pr.GetVersion())
		}
		pz = &resource.Parameterization{Base: pkg, BaseVersion: version, Name: pr.GetName(), Version: pr.GetVersion(), Value: pr.GetValue()}
		pkg, version = pz.Name, pz.Version
	}
	b, err := l.d.Schema(ctx, pkg, version, req.GetDownloadUrl(), pz)
	if err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	return &codegenrpc.GetSchemaResponse{Schema: b}, nil
}
