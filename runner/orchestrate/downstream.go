package orchestrate

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// checkDownstreamDestroyed refuses a destroy of targets while projects
// outside the targets that build on them (directly or through others) are
// still deployed: destroy --target eks deleted the cluster under every
// Kubernetes project, whose state then named resources of a cluster gone.
// Pulumi's destroy --target refuses dependents likewise.
func (o *run) checkDownstreamDestroyed(ctx context.Context) error {
	if len(o.req.Targets) == 0 || o.req.Operation != Destroy {
		return nil
	}
	dependents := map[string][]string{}
	for _, p := range o.req.Projects {
		for _, d := range p.DependsOn {
			dependents[d] = append(dependents[d], p.Name)
		}
	}
	var deployed []string
	seen := map[string]bool{}
	queue := append([]string(nil), o.req.Targets...)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, d := range dependents[name] {
			if o.include[d] || seen[d] {
				continue
			}
			seen[d] = true
			queue = append(queue, d)
			snap, err := o.req.Backend.Load(ctx, d, o.req.Stack, o.req.Crypter)
			if err != nil {
				return fmt.Errorf("checking the downstream project %s of the targets: %w", d, err)
			}
			if hasResources(snap) {
				deployed = append(deployed, d)
			}
		}
	}
	if len(deployed) > 0 {
		sort.Strings(deployed)
		return &DeployedDownstreamError{Stack: o.req.Stack, Targets: o.req.Targets, Deployed: deployed}
	}
	return nil
}

// DeployedDownstreamError names the projects still deployed on the stack
// that build on the targets of a destroy.
type DeployedDownstreamError struct {
	Stack             string
	Targets, Deployed []string
}

func (e *DeployedDownstreamError) Error() string {
	return fmt.Sprintf("destroy --target %s would leave these projects of stack %s without what they build on: %s; destroy them first (add them with --target, or run destroy without --target)",
		strings.Join(e.Targets, ", "), e.Stack, strings.Join(e.Deployed, ", "))
}
