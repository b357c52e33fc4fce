package state

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
)

// CheckpointVersion is the version of Pulumi's versioned checkpoint written,
// and the newest read.
const CheckpointVersion = 3

// Pulumi's DIY backends store a stack as a versioned checkpoint:
//
//	{"version": 3, "checkpoint": {"stack": "organization/<project>/<stack>", "latest": <deployment>}}
//
// MarshalCheckpoint and UnmarshalCheckpoint encode and decode it in one
// pass (no export in between), for the backends that keep it.
type checkpointJSON struct {
	Version    int      `json:"version"`
	Features   []string `json:"features,omitempty"`
	Checkpoint struct {
		Stack  string          `json:"stack"`
		Config json.RawMessage `json:"config,omitempty"`
		Latest *deploymentJSON `json:"latest,omitempty"`
	} `json:"checkpoint"`
}

// MarshalCheckpoint encodes snap, the state of project on stack, as Pulumi's
// versioned checkpoint (version 3, compact as Pulumi writes it), encrypting
// its secrets with c.
func MarshalCheckpoint(ctx context.Context, snap *Snapshot, project, stack string, c resource.Crypter) ([]byte, error) {
	d, err := encodeDeployment(ctx, snap, c)
	if err != nil {
		return nil, err
	}
	var cp checkpointJSON
	cp.Version = CheckpointVersion
	cp.Checkpoint.Stack = "organization/" + project + "/" + stack
	cp.Checkpoint.Latest = d
	out, err := json.Marshal(cp)
	if err != nil {
		return nil, fmt.Errorf("encoding the checkpoint: %w", err)
	}
	return append(out, '\n'), nil
}

// UnmarshalCheckpoint decodes Pulumi's versioned checkpoint, decrypting its
// secrets with c. A checkpoint of a newer version, or with features runner
// does not know, is refused; one with no deployment yet (a stack Pulumi
// created and never updated) is an empty snapshot. It does not run Check.
func UnmarshalCheckpoint(ctx context.Context, data []byte, c resource.Crypter) (*Snapshot, error) {
	return unmarshalCheckpoint(ctx, data, valueCodec{crypter: c})
}

// UnmarshalCheckpointOpaque is UnmarshalCheckpoint without decrypting
// secrets (see UnmarshalOpaque); never save what it returns.
func UnmarshalCheckpointOpaque(data []byte) (*Snapshot, error) {
	return unmarshalCheckpoint(context.Background(), data, valueCodec{opaque: true})
}

func unmarshalCheckpoint(ctx context.Context, data []byte, codec valueCodec) (*Snapshot, error) {
	var cp checkpointJSON
	if err := json.Unmarshal(data, &cp); err != nil {
		return nil, fmt.Errorf("the checkpoint is not a Pulumi checkpoint: %w", err)
	}
	if cp.Version > CheckpointVersion || len(cp.Features) > 0 {
		return nil, fmt.Errorf("the checkpoint has version %d (features %v), newer than this runner reads (version %d); upgrade runner", cp.Version, cp.Features, CheckpointVersion)
	}
	if cp.Version < 1 {
		return nil, fmt.Errorf("the checkpoint is not a Pulumi checkpoint (no version)")
	}
	if cp.Checkpoint.Latest == nil {
		return &Snapshot{}, nil
	}
	return decodeDeployment(ctx, cp.Checkpoint.Latest, codec)
}
