package bucket

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/engine/backend"
)

// LeftBackup names the bucket's backup of a missing (project, stack)
// checkpoint (one LIST; made only when the project has no checkpoint).
func (s *Store) LeftBackup(ctx context.Context, project, stack string) (string, error) {
	if err := names(project, stack); err != nil {
		return "", err
	}
	key := checkpointKey(project, stack)
	list, err := s.obj.List(ctx, key)
	if err != nil {
		return "", fmt.Errorf("listing the checkpoints of project %s on stack %s in %s: %w", project, stack, s.obj.Describe(), err)
	}
	found := ""
	for _, l := range list {
		for _, ext := range []string{"", gzipExt, zstdExt} {
			switch l.Key {
			case key + ext:
				return "", nil
			case key + ext + ".bak":
				if found == "" {
					found = s.obj.Describe() + "/" + l.Key
				}
			}
		}
	}
	return found, nil
}

var _ backend.LeftBackups = (*Store)(nil)
