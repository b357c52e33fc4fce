// The folder backend (Folder) keeps everything under one root folder
// (file://<root>, by default <workspace>/.runner) in Pulumi's DIY layout
// (diylayout.go), as the bucket backends do, so that `pulumi login
// file://<root>` lists runner's stacks and runner opens the stacks the
// Pulumi CLI made there:
//
//	<root>/.pulumi/meta.yaml                                  version: 1
//	<root>/.pulumi/stacks/<project>/<stack>.json              the committed state: a version 3 checkpoint
//	<root>/.pulumi/stacks/<project>/<stack>.json.bak          the checkpoint it replaced
//	<root>/.pulumi/history/<project>/<stack>/<stack>-<ns>.history.json  one record per operation
//	<root>/.pulumi/locks/organization/<project>/<stack>/runner.json     the project's lock (LockInfo)
//	<root>/.runner/stacks/<stack>/lock.json                   the stack's own lock (LockStack)
//	<root>/.runner/stacks/<stack>/tags.json                   the stack's tags
//	<root>/.runner/stacks/<stack>/<project>/journal.jsonl     the journal of the running (or crashed) operation
//	<root>/.runner/stacks/<stack>/<project>/history/<time>.json  the checkpoints replaced by the last commits (10 kept)
//
// A checkpoint the Pulumi CLI wrote gzipped (<stack>.json.gz) is read and
// written back so. A folder in runner's older layout is migrated once, on
// first use (migrate.go). Files are replaced atomically (a temporary file
// in the same folder, fsync, rename, fsync of the folder).
//
// The journal is JSON lines. The first line ("open") names the SHA-256 of
// the checkpoint file the operation began from; each mutating step appends a
// "begin" line (Seq, Op, the old and new resource) before its plugin call
// and a "success" or "failure" line (the new resource on success) after it.
// Lines of steps running side by side share one fsync: a single writer
// goroutine writes whatever is queued, fsyncs once and releases every
// waiter. A commit appends a "commit" line with the SHA-256 of the new
// snapshot, replaces the checkpoint, appends the history entry and removes
// the journal. On Load, a journal left by a crash is folded into the
// snapshot: successful steps are applied, begun steps without an end become
// pending operations, and a torn last line (a write cut short) is dropped,
// as it was never acknowledged. A journal whose commit line matches the
// snapshot is already applied and ignored. Every backend folds with the
// same function, Fold. A journal opens on an explicit base: the snapshot
// the operation begins from, stored first unless it is, by its Origin,
// the snapshot on disk.
//
// A lock names its holder: host, pid and the process's start time (so a
// pid reused later is not taken for the holder). A lock is a lease: the
// holder's heartbeat renews it every third of its lease (the lock file's
// modification time is the last renewal), so a lock whose holder stopped
// renewing it for longer than its lease is stale wherever the holder ran; a
// holder on this host whose process is gone is stale at once. A holder
// whose lock file was cleared or taken learns it (Lock.Lost), and its
// commit is refused (ErrFenced): every backend fences commits so. Before
// a step calls its plugin, the engine proves each lock it runs under
// still the holder's (Lock.Confirm): no step starts on a lease that may
// have run out and been taken.
//
// Runner and its command line use a backend through Store, and open it by
// its URL's scheme from a Registry built at start-up; the package
// backendtest is the conformance suite every Store passes.
package backend
