package backend

import (
	"bytes"
	"encoding/json"

	"github.com/runnerhq/runner/engine/state"
)

// describeCheckpoint is DescribeSecrets of a Pulumi checkpoint (plain
// JSON) read in one pass, where the long way converts it to an export
// first (FromCheckpoint) and reads that: three passes over the state, on
// the path of every command (~25 ms of a core for 1,000 resources). It
// answers only when its answer is the long way's: a checkpoint that holds
// no secret value and that FromCheckpoint reads; ok is false otherwise.
func describeCheckpoint(project, path string, plain, journal []byte) (out StateSecrets, ok bool) {
	if bytes.Contains(plain, []byte(state.SecretSig)) {
		return StateSecrets{}, false // where the secret sits is the long way's to say
	}
	var c struct {
		Version    int      `json:"version"`
		Features   []string `json:"features"`
		Checkpoint struct {
			Latest *struct {
				SecretsProviders *struct {
					Type  string          `json:"type"`
					State json.RawMessage `json:"state"`
				} `json:"secrets_providers"`
			} `json:"latest"`
		} `json:"checkpoint"`
	}
	if json.Unmarshal(plain, &c) != nil || c.Version > CheckpointVersion || len(c.Features) > 0 || c.Version < 1 {
		return StateSecrets{}, false
	}
	out = StateSecrets{Project: project, Path: path, HasSecrets: bytes.Contains(journal, []byte(state.SecretSig))}
	if l := c.Checkpoint.Latest; l != nil && l.SecretsProviders != nil {
		sp := l.SecretsProviders
		var st json.RawMessage
		if sp.State != nil {
			// As the export holds it: compact, HTML characters escaped.
			b, err := json.Marshal(sp.State)
			if err != nil {
				return StateSecrets{}, false
			}
			st = b
		}
		out.Provider = &state.SecretsProvider{Type: sp.Type, State: st}
	}
	return out, true
}
