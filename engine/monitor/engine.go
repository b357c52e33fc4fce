package monitor

import (
	"context"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/runnerhq/runner/engine/resource"
)

// engineService is Pulumi's Engine service: the program's logs and its
// root resource.
type engineService struct {
	pulumirpc.UnimplementedEngineServer
	d Deployment

	mu   sync.Mutex
	root string
}

// Log routes a program's message to the project's log.
func (e *engineService) Log(_ context.Context, req *pulumirpc.LogRequest) (*emptypb.Empty, error) {
	e.d.Log(severity(req.GetSeverity()), Unserved(req.GetMessage()), resource.URN(req.GetUrn()))
	return &emptypb.Empty{}, nil
}

// severity names a log severity as the engine's events do.
func severity(s pulumirpc.LogSeverity) string {
	switch s {
	case pulumirpc.LogSeverity_DEBUG:
		return "debug"
	case pulumirpc.LogSeverity_WARNING:
		return "warning"
	case pulumirpc.LogSeverity_ERROR:
		return "error"
	}
	return "info"
}

// GetRootResource returns the URN SetRootResource stored.
func (e *engineService) GetRootResource(context.Context, *pulumirpc.GetRootResourceRequest) (*pulumirpc.GetRootResourceResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return &pulumirpc.GetRootResourceResponse{Urn: e.root}, nil
}

// SetRootResource stores the program's root resource URN.
func (e *engineService) SetRootResource(_ context.Context, req *pulumirpc.SetRootResourceRequest) (*pulumirpc.SetRootResourceResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.root = req.GetUrn()
	return &pulumirpc.SetRootResourceResponse{}, nil
}
