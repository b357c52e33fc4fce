package backend

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// stackDir is runner's folder of the stack (its lock and tags).
func (f *Folder) stackDir(stack string) string { return f.key(RunnerStackPrefix(stack)) }

// ListStacks returns every stack with state, sorted by name, each with its
// projects (those with a checkpoint or a journal), sorted: runner's and
// those the Pulumi CLI made in the folder.
func (f *Folder) ListStacks(ctx context.Context) ([]StackInfo, error) {
	if err := f.ready(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	byStack := map[string]map[string]bool{}
	add := func(stack, project string) {
		if byStack[stack] == nil {
			byStack[stack] = map[string]bool{}
		}
		byStack[stack][project] = true
	}
	err := f.eachCheckpoint(func(project, stack string) { add(stack, project) })
	if err != nil {
		return nil, err
	}
	journals, _ := filepath.Glob(filepath.Join(f.key(".runner/stacks"), "*", "*", "journal.jsonl"))
	for _, j := range journals {
		project := filepath.Base(filepath.Dir(j))
		stack := filepath.Base(filepath.Dir(filepath.Dir(j)))
		if checkName("stack", stack) == nil && checkName("project", project) == nil {
			add(stack, project)
		}
	}
	out := make([]StackInfo, 0, len(byStack))
	for stack, projects := range byStack {
		info := StackInfo{Name: stack}
		for p := range projects {
			info.Projects = append(info.Projects, p)
		}
		sort.Strings(info.Projects)
		out = append(out, info)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Name < out[k].Name })
	return out, nil
}

// eachCheckpoint calls fn for every checkpoint file in .pulumi/stacks
// (<project>/<stack>.json, .json.gz or .json.zst) whose names are valid.
func (f *Folder) eachCheckpoint(fn func(project, stack string)) error {
	dir := f.key(".pulumi/stacks")
	projects, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("listing the stacks in %s: %w", dir, err)
	}
	for _, p := range projects {
		if !p.IsDir() || checkName("project", p.Name()) != nil {
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, p.Name()))
		if err != nil {
			return fmt.Errorf("listing the stacks in %s: %w", dir, err)
		}
		for _, file := range files {
			if stack, ok := checkpointStack(file.Name()); ok && !file.IsDir() {
				fn(p.Name(), stack)
			}
		}
	}
	return nil
}

// checkpointStack returns the stack a checkpoint file name is of.
func checkpointStack(name string) (string, bool) {
	for _, ext := range []string{".json", ".json" + gzipExt, ".json" + zstdExt} {
		if stack, ok := strings.CutSuffix(name, ext); ok {
			return stack, checkName("stack", stack) == nil
		}
	}
	return "", false
}

// Projects lists the projects with state (a checkpoint or a journal) on
// stack, sorted.
func (f *Folder) Projects(ctx context.Context, stack string) ([]string, error) {
	if err := f.checkStack(stack); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, ext := range []string{".json", ".json" + gzipExt, ".json" + zstdExt} {
		found, _ := filepath.Glob(filepath.Join(f.key(".pulumi/stacks"), "*", stack+ext))
		for _, path := range found {
			set[filepath.Base(filepath.Dir(path))] = true
		}
	}
	journals, _ := filepath.Glob(filepath.Join(f.stackDir(stack), "*", "journal.jsonl"))
	for _, j := range journals {
		set[filepath.Base(filepath.Dir(j))] = true
	}
	return sortedValid(set), nil
}

// projectsLocked lists, sorted, the projects of stack whose lock file
// (runner's, in Pulumi's lock folder) exists.
func (f *Folder) projectsLocked(stack string) ([]string, error) {
	found, err := filepath.Glob(filepath.Join(f.key(".pulumi/locks/organization"), "*", stack, "runner.json"))
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, path := range found {
		set[filepath.Base(filepath.Dir(filepath.Dir(path)))] = true
	}
	return sortedValid(set), nil
}

func sortedValid(set map[string]bool) []string {
	var out []string
	for p := range set {
		if checkName("project", p) == nil {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// removeProject removes the state of p's project on p's stack: its
// checkpoint in every form with its backups, its update records, and
// runner's folder (journal, replaced checkpoints). The lock stays.
func (f *Folder) removeProject(p paths) error {
	base := f.key(DIYCheckpointKey(p.project, p.stack))
	for _, ext := range []string{"", gzipExt, zstdExt} {
		for _, bak := range []string{"", ".bak"} {
			if err := os.Remove(base + ext + bak); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	history := f.key(DIYHistoryPrefix(p.project, p.stack))
	for _, dir := range []string{p.dir, history} {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	removeEmpty(filepath.Dir(base), filepath.Dir(history))
	if err := syncDir(filepath.Dir(filepath.Dir(base))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// removeEmpty removes the folders dirs that are empty.
func removeEmpty(dirs ...string) {
	for _, d := range dirs {
		_ = os.Remove(d) // fails, as it should, unless empty
	}
}
