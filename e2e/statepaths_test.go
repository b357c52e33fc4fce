package e2e

import "path/filepath"

// The files of the default folder backend (<workspace>/.runner) in
// Pulumi's DIY layout, with runner's own data under its .runner/.

func checkpointFile(dir, stack, project string) string {
	return filepath.Join(dir, ".runner", ".pulumi", "stacks", project, stack+".json")
}

func journalFile(dir, stack, project string) string {
	return filepath.Join(runnerStackDir(dir, stack), project, "journal.jsonl")
}

func projectLockFile(dir, stack, project string) string {
	return filepath.Join(dir, ".runner", ".pulumi", "locks", "organization", project, stack, "runner.json")
}

func stackLockFile(dir, stack string) string {
	return filepath.Join(runnerStackDir(dir, stack), "lock.json")
}

func runnerStackDir(dir, stack string) string {
	return filepath.Join(dir, ".runner", ".runner", "stacks", stack)
}
