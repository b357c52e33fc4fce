// Package workspace reads the workspace file, runner.yaml: environments
// (providers, in runner's words) made of the user's own Pulumi project
// folders, which sit beside the built-in providers in every command.
package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/internal/boundedfile"
	"github.com/runnerhq/runner/projects/pulumiproject"
	"github.com/runnerhq/runner/projects/runtime"
	"github.com/runnerhq/runner/providers"
)

// FileName is the workspace file, at the workspace root.
const FileName = "runner.yaml"

// Error is a problem of the workspace file, with its line (0: the file as
// a whole).
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Load reads the workspace file of the workspace folder ws and returns its
// environments, in file order. No file is no environments and no error.
// Every problem (of runner.yaml and of the Pulumi.yaml files it names) is
// reported at once, each naming its file and line; reserved are the names
// of the built-in providers, which an environment may not take.
func Load(ws string, reserved []string) ([]*providers.Provider, error) {
	file := filepath.Join(ws, FileName)
	data, err := boundedfile.ReadFile(file, boundedfile.Workspace)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if boundedfile.IsRefused(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("reading the workspace file: %w", err)
	}
	p := &parser{file: file, folders: map[string]folderUse{}}
	f := p.parse(data)
	var out []*providers.Provider
	if f != nil {
		for _, e := range f.envs {
			if contains(reserved, e.name) {
				p.fail(e.line, "the environment %s takes the name of a built-in provider; rename it", e.name)
				continue
			}
			out = append(out, p.provider(ws, e))
		}
	}
	if len(p.errs) > 0 {
		return nil, &FileError{File: file, Errs: p.errs}
	}
	return out, nil
}

// FileError is every problem found in the workspace file and the project
// files it names.
type FileError struct {
	File string
	Errs []error
}

func (e *FileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the workspace file %s is not valid; nothing was run:", e.File)
	for _, err := range e.Errs {
		for _, line := range strings.Split(err.Error(), "\n") {
			b.WriteString("\n  " + line)
		}
	}
	return b.String()
}

func (e *FileError) Unwrap() []error { return e.Errs }

// provider builds an environment: its projects' folders read, names,
// edges and cycles checked.
func (p *parser) provider(ws string, e *envDecl) *providers.Provider {
	prov := &providers.Provider{Name: e.name, Description: e.description}
	if prov.Description == "" {
		prov.Description = "your projects (" + FileName + ")"
	}
	byKey := map[string]*projDecl{}
	for _, d := range e.projects {
		byKey[d.key] = d
	}
	for _, d := range e.projects {
		proj := p.project1(ws, d)
		if proj == nil {
			continue
		}
		for _, dep := range d.dependsOn {
			if _, ok := byKey[dep.name]; !ok {
				p.fail(dep.line, "project %s depends on %q, which is not a project of environment %s", d.key, dep.name, e.name)
				continue
			}
			proj.DependsOn = append(proj.DependsOn, dep.name)
		}
		p.sameFolder(e.name, d, filepath.Clean(proj.User.Project.Dir))
		prov.Projects = append(prov.Projects, *proj)
		prov.Questions = append(prov.Questions, requiredQuestions(proj.User.Project)...)
	}
	p.cycles(e, byKey)
	prov.Questions = append(envQuestions(e.questions), prov.Questions...)
	return prov
}

// folderUse is where a project name was first given a folder.
type folderUse struct {
	env, dir string
	line     int
}

// sameFolder refuses a project name that another environment gives to
// another folder: the two would share the project's state on a stack.
func (p *parser) sameFolder(env string, d *projDecl, dir string) {
	first, ok := p.folders[d.key]
	if !ok {
		p.folders[d.key] = folderUse{env: env, dir: dir, line: d.line}
		return
	}
	if first.dir != dir {
		p.fail(d.line, "project %s: its folder %s is not the folder %s of project %s in environment %s (line %d); "+
			"two projects of one name share their state on a stack, so rename one in its Pulumi.yaml",
			d.key, dir, first.dir, d.key, first.env, first.line)
	}
}

// project1 reads one project's folder and Pulumi.yaml.
func (p *parser) project1(ws string, d *projDecl) *providers.Project {
	dir := d.path
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(ws, dir)
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		p.fail(d.pathLine, "project %s: the folder %s does not exist", d.key, dir)
		return nil
	}
	pp, err := pulumiproject.Load(dir)
	if err != nil {
		var pe *pulumiproject.Error
		if errors.As(err, &pe) || errors.Is(err, os.ErrNotExist) {
			if errors.Is(err, os.ErrNotExist) {
				p.fail(d.pathLine, "project %s: the folder %s has no Pulumi.yaml; is it a Pulumi project?", d.key, dir)
			} else {
				p.errs = append(p.errs, err)
			}
			return nil
		}
		p.fail(d.pathLine, "project %s: %v", d.key, err)
		return nil
	}
	if pp.Name != d.key {
		p.fail(d.line, "project %s: its Pulumi.yaml (%s) names it %q; the key must be the project's name", d.key, pp.File, pp.Name)
		return nil
	}
	proj := &providers.Project{Name: d.key, Category: d.category, Description: pp.Runtime + " project " + d.path,
		User: &providers.UserProject{Project: pp, Hosted: hosted(pp)}}
	if d.onSuccess != "" {
		proj.OnSuccess = hook(ws, d.onSuccess)
	}
	return proj
}

// hosted returns the project's runtime for a run.
func hosted(pp *pulumiproject.Project) func(providers.Runtime) (source.Hosted, error) {
	return func(rt providers.Runtime) (source.Hosted, error) {
		return runtime.For(pp, runtime.Options{Environ: rt.Environ, CacheDir: filepath.Join(rt.Workspace, ".runner", "programs")})
	}
}

// cycles reports each cycle of the environment's edges once, at the line
// of the dependsOn entry that closes it.
func (p *parser) cycles(e *envDecl, byKey map[string]*projDecl) {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var visit func(d *projDecl)
	visit = func(d *projDecl) {
		color[d.key] = grey
		stack = append(stack, d.key)
		for _, dep := range d.dependsOn {
			next, ok := byKey[dep.name]
			if !ok {
				continue
			}
			switch color[dep.name] {
			case grey:
				i := indexOf(stack, dep.name)
				path := append(append([]string{}, stack[i:]...), dep.name)
				p.fail(dep.line, "environment %s has a cycle: %s; remove one of these dependsOn entries", e.name, strings.Join(path, " -> "))
			case white:
				visit(next)
			}
		}
		stack = stack[:len(stack)-1]
		color[d.key] = black
	}
	for _, d := range e.projects {
		if color[d.key] == white {
			visit(d)
		}
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// envQuestions are the environment's own questions.
func envQuestions(qs []questionDecl) []providers.Question {
	var out []providers.Question
	for _, q := range qs {
		pq := providers.Question{Key: q.key, Message: q.description, Secret: q.secret, Choices: q.choices}
		if pq.Message == "" {
			pq.Message = q.key
		}
		if q.hasDefault {
			pq.Default = providers.Constant(q.def)
		}
		out = append(out, pq)
	}
	return out
}

// requiredQuestions are the keys a project's Pulumi.yaml requires and
// gives no default for, with their types checked.
func requiredQuestions(pp *pulumiproject.Project) []providers.Question {
	var out []providers.Question
	for _, k := range pp.Config {
		if !k.Required() {
			continue
		}
		msg := k.Description
		if msg == "" {
			msg = fmt.Sprintf("%s (required by project %s)", k.Key, pp.Name)
		}
		typ := k.Type
		out = append(out, providers.Question{Key: k.Key, Message: msg, Secret: k.Secret, Project: pp.Name,
			Validate: func(v string) error {
				if strings.TrimSpace(v) == "" {
					return errors.New("must not be empty")
				}
				return pulumiproject.CheckType(typ, v)
			}})
	}
	return out
}
