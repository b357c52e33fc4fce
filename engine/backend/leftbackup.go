package backend

import (
	"context"
	"fmt"
	"os"
)

// LeftBackups is implemented by the backends that keep Pulumi's DIY layout
// (the folder, buckets). The Pulumi CLI's `stack rm` keeps a removed
// stack's last checkpoint as <stack>.json.bak, and a crash while it
// changes a checkpoint's compression can leave only that backup: either
// way the stack has no checkpoint, but its last state lies beside it.
type LeftBackups interface {
	// LeftBackup names the backup of the (project, stack) checkpoint
	// (<stack>.json[.gz|.zst].bak) when there is no checkpoint; "" when
	// there is none, or when the checkpoint is there.
	LeftBackup(ctx context.Context, project, stack string) (string, error)
}

// LeftBackupError refuses an operation on a project whose checkpoint is
// missing while its backup (Backup) is there, so that nobody starts it
// again from no state (creating every resource again) unawares.
type LeftBackupError struct {
	Project, Stack, Backup string
}

// Error says what the file is and the two ways on.
func (e *LeftBackupError) Error() string {
	return fmt.Sprintf("project %s has no state on stack %s, but its last checkpoint is kept as %s "+
		"(the Pulumi CLI's `stack rm` leaves it so, as does a crash while Pulumi changed the checkpoint's compression); "+
		"to go on from that state, rename it without its .bak; to start the project afresh (creating its resources again), remove it",
		e.Project, e.Stack, e.Backup)
}

// LeftBackup names the folder's backup of a missing checkpoint.
func (f *Folder) LeftBackup(_ context.Context, project, stack string) (string, error) {
	if err := checkName("project", project); err != nil {
		return "", err
	}
	if err := f.checkStack(stack); err != nil {
		return "", err
	}
	plain := f.key(DIYCheckpointKey(project, stack))
	found := ""
	for _, ext := range []string{"", GzipExt, ZstdExt} {
		if _, err := os.Lstat(plain + ext); err == nil {
			return "", nil
		}
		if _, err := os.Lstat(plain + ext + ".bak"); err == nil && found == "" {
			found = plain + ext + ".bak"
		}
	}
	return found, nil
}

var _ LeftBackups = (*Folder)(nil)
