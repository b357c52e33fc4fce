package backend

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Pulumi's DIY layout (project mode, .pulumi/meta.yaml version 1), as the
// folder backend and the bucket backends keep it, with runner's own data
// under .runner/. Keys are slash-separated and relative to the backend's
// root (a folder or a bucket's prefix):
//
//	.pulumi/meta.yaml                                    version: 1 (the project layout)
//	.pulumi/stacks/<project>/<stack>.json[.gz]           the committed state: a version 3 checkpoint
//	.pulumi/stacks/<project>/<stack>.json[.gz].bak       the checkpoint it replaced
//	.pulumi/history/<project>/<stack>/<stack>-<ns>.history.json  one update record per operation
//	.pulumi/locks/organization/<project>/<stack>/runner.json     the project's lock (Pulumi sees a lock)
//	.pulumi/locks/organization/<project>/<stack>/<uuid>.json     a Pulumi CLI's lock (runner refuses the project; stack unlock clears a stale one)
//	.runner/stacks/<stack>/lock.json                     the stack-wide lock (runner only)
//	.runner/stacks/<stack>/tags.json                     the stack's tags
//	.runner/stacks/<stack>/secrets.json                  in a bucket: what each checkpoint records of its secrets, by its ETag
//	.runner/stacks/<stack>/<project>/                    a project's journal (and, in a folder, replaced checkpoints)
//	.runner/history/<stack>/<stack>-<ns>.history.json    records of the stack's own (a takeover of its lock)

// DIYMetaKey is Pulumi's layout file; DIYMeta what runner writes there.
const (
	DIYMetaKey = ".pulumi/meta.yaml"
	DIYMeta    = "version: 1\n"
)

// DIYCheckpointKey is the (project, stack) checkpoint, uncompressed.
func DIYCheckpointKey(project, stack string) string {
	return ".pulumi/stacks/" + project + "/" + stack + ".json"
}

// DIYHistoryPrefix is the folder of the (project, stack) update records.
func DIYHistoryPrefix(project, stack string) string {
	return ".pulumi/history/" + project + "/" + stack + "/"
}

// DIYLockDir is Pulumi's lock folder of (project, stack).
func DIYLockDir(project, stack string) string {
	return ".pulumi/locks/organization/" + project + "/" + stack + "/"
}

// DIYProjectLockKey is runner's lock file in Pulumi's lock folder.
func DIYProjectLockKey(project, stack string) string {
	return DIYLockDir(project, stack) + "runner.json"
}

// RunnerStackPrefix is the folder of runner's own data of stack.
func RunnerStackPrefix(stack string) string { return ".runner/stacks/" + stack + "/" }

// RunnerProjectPrefix is the folder of runner's own data of (project, stack).
func RunnerProjectPrefix(project, stack string) string {
	return RunnerStackPrefix(stack) + project + "/"
}

// RunnerStackHistoryPrefix is the folder of the stack's own history records.
func RunnerStackHistoryPrefix(stack string) string { return ".runner/history/" + stack + "/" }

// DIYHistoryName is the name of an update record written at ns (Unix
// nanoseconds), as Pulumi names it.
func DIYHistoryName(stack string, ns int64) string {
	return fmt.Sprintf("%s-%d.history.json", stack, ns)
}

// DIYHistoryTime returns the Unix nanoseconds a record's name carries, and
// whether name is one (<stack>-<ns>.history.json).
func DIYHistoryTime(stack, name string) (int64, bool) {
	rest, ok := strings.CutPrefix(name, stack+"-")
	if !ok {
		return 0, false
	}
	rest, ok = strings.CutSuffix(rest, ".history.json")
	if !ok {
		return 0, false
	}
	var ns int64
	if _, err := fmt.Sscanf(rest, "%d", &ns); err != nil {
		return 0, false
	}
	return ns, true
}

// ParseDIYMeta returns the layout version .pulumi/meta.yaml names.
func ParseDIYMeta(data []byte) (int, error) {
	var version int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(data)), "version: %d", &version); err != nil {
		return 0, fmt.Errorf("%q names no layout version", strings.TrimSpace(string(data)))
	}
	return version, nil
}

// diyUpdate is one operation as Pulumi's DIY backend records it
// (<stack>-<ns>.history.json: a backend.UpdateInfo), with runner's record
// beside it.
type diyUpdate struct {
	Kind            string            `json:"kind"`
	StartTime       int64             `json:"startTime"`
	Message         string            `json:"message"`
	Environment     map[string]string `json:"environment"`
	Config          map[string]any    `json:"config"`
	Result          string            `json:"result"`
	EndTime         int64             `json:"endTime"`
	ResourceChanges map[string]int    `json:"resourceChanges,omitempty"`
	Runner          *HistoryRecord    `json:"runner,omitempty"`
}

// EncodeDIYUpdate renders rec as Pulumi's update record.
func EncodeDIYUpdate(rec HistoryRecord) ([]byte, error) {
	end := rec.EndTime
	if end.IsZero() {
		end = time.Now().UTC()
	}
	info := diyUpdate{Kind: rec.Kind, StartTime: rec.StartTime.Unix(), EndTime: end.Unix(), Message: rec.Message,
		Result: rec.Result, ResourceChanges: rec.Changes, Config: map[string]any{},
		Environment: map[string]string{"exec.kind": "runner", "runner.user": rec.User, "runner.host": rec.Host}, Runner: &rec}
	data, err := json.MarshalIndent(info, "", "    ")
	if err != nil {
		return nil, fmt.Errorf("encoding the history record: %w", err)
	}
	return data, nil
}

// DecodeDIYUpdate reads Pulumi's update record: runner's own record when
// runner wrote it, else what Pulumi's says.
func DecodeDIYUpdate(data []byte) (HistoryRecord, error) {
	var info diyUpdate
	if err := json.Unmarshal(data, &info); err != nil {
		return HistoryRecord{}, err
	}
	if info.Runner != nil {
		return *info.Runner, nil
	}
	return HistoryRecord{Kind: info.Kind, Result: info.Result, StartTime: time.Unix(info.StartTime, 0).UTC(),
		EndTime: time.Unix(info.EndTime, 0).UTC(), Changes: info.ResourceChanges, Message: info.Message}, nil
}

// diyLockBody is a lock file: runner's holder, plus the fields of Pulumi's
// own lock files, so that the Pulumi CLI names runner as the holder.
type diyLockBody struct {
	LockInfo
	Username  string    `json:"username"`
	Hostname  string    `json:"hostname"`
	Timestamp time.Time `json:"timestamp"`
}

// EncodeLockBody renders h as a lock file both runner and Pulumi read.
func EncodeLockBody(h LockInfo) ([]byte, error) {
	return json.Marshal(diyLockBody{LockInfo: h, Username: h.User, Hostname: h.Host, Timestamp: h.Started})
}

// DecodeLockBody reads a lock file runner or the Pulumi CLI wrote.
func DecodeLockBody(data []byte) (LockInfo, error) {
	var b diyLockBody
	if err := json.Unmarshal(data, &b); err != nil {
		return LockInfo{}, err
	}
	h := b.LockInfo
	if h.Host == "" && b.Hostname != "" { // a lock file the Pulumi CLI wrote
		h.Host, h.User, h.Started, h.Command = b.Hostname, b.Username, b.Timestamp, "the Pulumi CLI ("+b.Username+")"
	}
	return h, nil
}
