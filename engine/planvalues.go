package engine

import (
	"context"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
)

// The plan values live in engine/plan; these names keep them where the
// engine's callers find them.
type (
	// Op is a step's operation (plan.Op).
	Op = plan.Op
	// Step is one planned or executed step (plan.Step).
	Step = plan.Step
	// Plan is what a preview decided for one project (plan.Plan).
	Plan = plan.Plan
	// PlanMismatchError says Up refused a plan (plan.MismatchError).
	PlanMismatchError = plan.MismatchError
)

// The step operations (plan.OpSame and the others). Like the aliases of
// programs.go, these are names, not copies: they keep engine/plan's values
// where the engine's callers find them.
const (
	OpSame              = plan.OpSame
	OpCreate            = plan.OpCreate
	OpUpdate            = plan.OpUpdate
	OpReplace           = plan.OpReplace
	OpCreateReplacement = plan.OpCreateReplacement
	OpDeleteReplaced    = plan.OpDeleteReplaced
	OpDelete            = plan.OpDelete
	OpRefresh           = plan.OpRefresh
	OpImport            = plan.OpImport
	OpRead              = plan.OpRead
	OpReadReplacement   = plan.OpReadReplacement
	OpReadDiscard       = plan.OpReadDiscard
	OpDiscardReplaced   = plan.OpDiscardReplaced
)

// PlanVersion is the version of the plan encoding (plan.Version).
const PlanVersion = plan.Version

// MarshalPlan encodes p with its secrets encrypted by c (plan.Marshal).
func MarshalPlan(ctx context.Context, p *Plan, c resource.Crypter) ([]byte, error) {
	return plan.Marshal(ctx, p, c)
}

// UnmarshalPlan decodes what MarshalPlan wrote (plan.Unmarshal).
func UnmarshalPlan(ctx context.Context, data []byte, c resource.Crypter) (*Plan, error) {
	return plan.Unmarshal(ctx, data, c)
}
