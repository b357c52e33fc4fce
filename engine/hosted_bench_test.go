package engine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
)

// fanOut is a hosted program that registers the root stack, then n
// resources at once (as an SDK does when they do not depend on each
// other), each over gRPC, then the stack outputs.
func fanOut(n int) hostedFunc {
	return func(ctx context.Context, c *client) error {
		root, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: resource.RootStackType, Name: c.req.Project + "-" + c.req.Stack}, nil)
		if err != nil {
			return err
		}
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, _, _, errs[i] = c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: typ, Name: fmt.Sprintf("r%d", i), Parent: root, Custom: true},
					resource.PropertyMap{"index": float64(i), "name": fmt.Sprintf("r%d", i)})
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		_, err = c.mon.RegisterResourceOutputs(ctx, &pulumirpc.RegisterResourceOutputsRequest{Urn: root})
		return err
	}
}

// BenchmarkHostedRegistrations is an up of 1,000 resources registered
// through the monitor's gRPC services, on a fresh stack each time.
func BenchmarkHostedRegistrations(b *testing.B) {
	for name, newBackend := range benchBackends(b) {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				opts := benchOptions(newBackend())
				opts.Hosted = fanOut(1000)
				res, err := engine.Up(context.Background(), opts, nil)
				if err != nil {
					b.Fatal(err)
				}
				if res.Changes[engine.OpCreate] != 1001 {
					b.Fatalf("changes %v", res.Changes)
				}
			}
		})
	}
}
