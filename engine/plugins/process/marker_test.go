package process

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

// TestFoundByMarkerWithoutPidFile: a process whose create was cut short
// after the start but before its pid file was written (runner killed) is
// found again, by the marker in its environment, by the Read of the next
// run's crash recovery; a resource of another URN does not find it. Before,
// the read found nothing and the next up started a second process.
func TestFoundByMarkerWithoutPidFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	urn := resource.URN("urn:pulumi:dev::local::process:index:Process::service")
	in := resource.PropertyMap{"command": []any{"sleep", "60"}, "pidFile": filepath.Join(dir, "svc.pid")}
	res, err := Plugin{}.Create(ctx, resource.CreateRequest{URN: urn, Type: Type, Inputs: in})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = Plugin{}.Delete(context.Background(), resource.DeleteRequest{URN: urn, Type: Type, ID: res.ID, Inputs: in, Outputs: res.Outputs})
	})
	if err := os.Remove(filepath.Join(dir, "svc.pid")); err != nil {
		t.Fatal(err)
	}
	found, err := Plugin{}.Read(ctx, resource.ReadRequest{URN: urn, Type: Type, Inputs: in})
	if err != nil || found.ID != res.ID {
		t.Fatalf("read of the interrupted create = %+v, %v; want the started process %s", found, err, res.ID)
	}
	other, err := Plugin{}.Read(ctx, resource.ReadRequest{URN: urn + "2", Type: Type, Inputs: in})
	if err != nil || other.ID != "" {
		t.Fatalf("read for another resource = %+v, %v; want nothing found", other, err)
	}
}
