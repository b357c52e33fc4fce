package orchestrate

import (
	"context"
	"errors"
	"testing"

	"github.com/runnerhq/runner/engine/plugintest"
)

// destroy --target of a project that deployed projects build on (through
// others too) is refused, changing nothing; with them targeted, or once
// they are gone, it runs.
func TestDestroyTargetWithDeployedDownstream(t *testing.T) {
	ctx := context.Background()
	b := plugintest.NewBackend()
	req, _ := request(Up, b, failingPlugin(), chain(diamond, diamondOrder, nil))
	if _, err := Run(ctx, req); err != nil {
		t.Fatal(err)
	}
	req.Operation = Destroy
	tests := []struct {
		targets []string
		want    []string // the deployed downstream projects named; nil: runs
	}{
		{[]string{"a"}, []string{"b", "c", "d"}},
		{[]string{"a", "b"}, []string{"c", "d"}},
		{[]string{"b"}, []string{"d"}},
		{[]string{"e"}, nil},
		{[]string{"d"}, nil},
		{[]string{"a", "b", "c"}, nil}, // d is gone now
	}
	for _, tt := range tests {
		req.Targets = tt.targets
		_, err := Run(ctx, req)
		var deployed *DeployedDownstreamError
		switch {
		case tt.want == nil && err != nil:
			t.Fatalf("destroy --target %v: %v", tt.targets, err)
		case tt.want != nil && (!errors.As(err, &deployed) || !equal(deployed.Deployed, tt.want)):
			t.Fatalf("destroy --target %v: %v, want %v named", tt.targets, err, tt.want)
		case tt.want != nil:
			for _, n := range tt.targets {
				if b.Get(n, "dev") == nil {
					t.Fatalf("the refused destroy --target %v deleted %s", tt.targets, n)
				}
			}
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
