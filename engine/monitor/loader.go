package monitor

import (
	"context"

	codegenrpc "github.com/pulumi/pulumi/sdk/v3/proto/go/codegen"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// loader is Pulumi's schema Loader, which the YAML host asks for the
// schema of every package its program uses.
type loader struct {
	codegenrpc.UnimplementedLoaderServer
	d Deployment
}

// GetSchema returns a package's schema.
func (l *loader) GetSchema(ctx context.Context, req *codegenrpc.GetSchemaRequest) (*codegenrpc.GetSchemaResponse, error) {
	if req.GetParameterization() != nil {
		return nil, status.Errorf(codes.Unimplemented, "package %s: parameterized packages are not supported by runner", req.GetPackage())
	}
	b, err := l.d.Schema(ctx, req.GetPackage(), req.GetVersion(), req.GetDownloadUrl())
	if err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	return &codegenrpc.GetSchemaResponse{Schema: b}, nil
}
