package backend

import (
	"encoding/json"
	"fmt"
)

// Pulumi's DIY backends (and runner's bucket backends) store a stack as a
// versioned checkpoint, not as the deployment `pulumi stack export`
// prints:
//
//	{"version": 3, "checkpoint": {"stack": "organization/<project>/<stack>", "latest": <deployment>}}
//
// where <deployment> is the "deployment" of an export. ToCheckpoint and
// FromCheckpoint convert between the two without decoding the deployment.

// CheckpointVersion is the checkpoint version written and the newest read.
const CheckpointVersion = 3

type exportJSON struct {
	Version    int             `json:"version"`
	Deployment json.RawMessage `json:"deployment"`
}

type checkpointJSON struct {
	Version    int      `json:"version"`
	Features   []string `json:"features,omitempty"`
	Checkpoint struct {
		Stack  string          `json:"stack"`
		Config json.RawMessage `json:"config,omitempty"`
		Latest json.RawMessage `json:"latest,omitempty"`
	} `json:"checkpoint"`
}

// ToCheckpoint converts an export (state.Marshal's output) of (project,
// stack) into Pulumi's checkpoint.
func ToCheckpoint(project, stack string, export []byte) ([]byte, error) {
	var e exportJSON
	if err := json.Unmarshal(export, &e); err != nil {
		return nil, fmt.Errorf("converting the state of project %s on stack %s to a checkpoint: %w", project, stack, err)
	}
	var c checkpointJSON
	c.Version = CheckpointVersion
	c.Checkpoint.Stack = "organization/" + project + "/" + stack
	c.Checkpoint.Latest = e.Deployment
	return json.MarshalIndent(c, "", "    ")
}

// FromCheckpoint converts Pulumi's checkpoint (where, for messages) into
// an export as state.Unmarshal reads it; a checkpoint of a newer version,
// or one with features runner does not know, is refused.
func FromCheckpoint(where string, data []byte) ([]byte, error) {
	var c checkpointJSON
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("reading the checkpoint %s: %w", where, err)
	}
	if c.Version > CheckpointVersion || len(c.Features) > 0 {
		return nil, fmt.Errorf("reading the checkpoint %s: version %d (features %v) is newer than this runner reads (version %d); upgrade runner", where, c.Version, c.Features, CheckpointVersion)
	}
	if c.Version < 1 {
		return nil, fmt.Errorf("reading the checkpoint %s: it is not a Pulumi checkpoint (no version)", where)
	}
	latest := c.Checkpoint.Latest
	if len(latest) == 0 || string(latest) == "null" {
		latest = json.RawMessage(`{"manifest":{"time":"0001-01-01T00:00:00Z","magic":"","version":""}}`)
	}
	return json.Marshal(exportJSON{Version: 3, Deployment: latest})
}

// AsExport returns data, a file given to `runner stack import` (where, for
// messages), as an export: a Pulumi checkpoint (the <stack>.json.bak beside
// a checkpoint, or a copy kept in runner's history folder, which is what
// the messages about an unreadable checkpoint point to) is converted with
// FromCheckpoint; anything else is returned as it is.
func AsExport(where string, data []byte) ([]byte, error) {
	var probe struct {
		Checkpoint json.RawMessage `json:"checkpoint"`
		Deployment json.RawMessage `json:"deployment"`
	}
	if json.Unmarshal(data, &probe) != nil || probe.Checkpoint == nil || probe.Deployment != nil {
		return data, nil
	}
	return FromCheckpoint(where, data)
}
