package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/projects/pulumiproject"
	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/runner/orchestrate"
)

// userRun is what a run needs of the session's user projects (folders of
// runner.yaml): each one's runtime and config.
type userRun struct {
	hosted map[string]source.Hosted
	config map[string]map[string]any
}

// runtimes returns the runtimes of the user projects among names. One
// that cannot start is a validation error naming what is missing, every
// project's at once; preview and up check them before anything else
// (validation included) may change a file.
func (s *Session) runtimes(names []string) (map[string]source.Hosted, error) {
	out := map[string]source.Hosted{}
	var errs []error
	rt := s.Runtime()
	for _, name := range names {
		p, _ := s.Provider.Project(name)
		if p == nil || p.User == nil {
			continue
		}
		h, err := p.User.Hosted(rt)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[name] = h
	}
	if len(errs) > 0 {
		return nil, Invalid(errors.Join(errs...))
	}
	return out, nil
}

// userProjects prepares the user projects among names for a run: their
// runtimes (hosted, for preview and up; nil otherwise) and each one's
// config. Warnings name keys the shared config and a project's own file
// set differently. withRuntime says a program runs: a value it requires
// and lacks is then an error.
func (s *Session) userProjects(ctx context.Context, names []string, shared map[string]any, hosted map[string]source.Hosted) (*userRun, []string, error) {
	u := &userRun{hosted: hosted, config: map[string]map[string]any{}}
	withRuntime := hosted != nil
	var warnings []string
	var errs []error
	for _, name := range names {
		p, _ := s.Provider.Project(name)
		if p == nil || p.User == nil {
			continue
		}
		// refresh and destroy run no program: a value the program needs
		// but lacks does not stop them.
		cfg, warn, err := s.projectConfig(ctx, p.User.Project, shared)
		warnings = append(warnings, warn...)
		if err != nil && (withRuntime || cfg == nil) {
			errs = append(errs, err)
			continue
		}
		u.config[name] = cfg
	}
	if len(errs) > 0 {
		return nil, warnings, Invalid(errors.Join(errs...))
	}
	return u, warnings, nil
}

// projectConfig returns a user project's config, in Pulumi's precedence:
// its own Pulumi.<stack>.yaml over the shared stack config, then the
// defaults of its Pulumi.yaml for keys neither sets. Keys its Pulumi.yaml
// declares secret are secrets whatever file holds them.
func (s *Session) projectConfig(ctx context.Context, pp *pulumiproject.Project, shared map[string]any) (map[string]any, []string, error) {
	out := make(map[string]any, len(shared))
	for k, v := range shared {
		out[k] = v
	}
	var warnings []string
	own, ownPath, err := s.ownStackFile(ctx, pp)
	if err != nil {
		return nil, nil, err
	}
	if own != nil {
		for k, v := range own.vals {
			v = toEngine(v)
			if old, ok := out[k]; ok && !reflect.DeepEqual(old, v) {
				warnings = append(warnings, fmt.Sprintf("%s is set in both %s line %d and %s line %d; project %s uses the value of %s",
					k, s.ConfigPath, s.Config.Line(k), ownPath, own.file.Line(k), pp.Name, ownPath))
			}
			out[k] = v
		}
	}
	var errs []error
	for _, ck := range pp.Config {
		v, ok := out[ck.Key]
		if !ok {
			if !ck.HasDefault {
				errs = append(errs, fmt.Errorf("project %s requires %s (%s), which has no value: set it with `runner config set %s%s <value>`",
					pp.Name, ck.Key, pp.File, secretFlag(ck.Secret), ck.Key))
				continue
			}
			v = ck.Default
		}
		if ck.Type != "" {
			if err := pulumiproject.CheckType(ck.Type, plainValue(v)); err != nil {
				errs = append(errs, fmt.Errorf("project %s: %s %w, as %s line %d declares", pp.Name, ck.Key, err, pp.File, ck.Line))
				continue
			}
		}
		if _, isSecret := v.(resource.Secret); ck.Secret && !isSecret {
			if ok {
				errs = append(errs, s.plaintextSecret(pp, ck, own, ownPath))
				continue
			}
			v = resource.Secret{Element: v}
		}
		out[ck.Key] = v
	}
	return out, warnings, errors.Join(errs...)
}

// plaintextSecret is the error of a stack config value in plain text for
// a key that pp's Pulumi.yaml declares secret, as Pulumi refuses it ("must
// be encrypted as it's secret"), naming the file and line of the value.
func (s *Session) plaintextSecret(pp *pulumiproject.Project, ck pulumiproject.ConfigKey, own *ownFile, ownPath string) error {
	file, line, fix := s.ConfigPath, s.Config.Line(ck.Key), "encrypt it: `runner config set --secret "+ck.Key+" <value>`"
	if own != nil {
		if _, there := own.vals[ck.Key]; there {
			file, line, fix = ownPath, own.file.Line(ck.Key), "remove it there and set it with `runner config set --secret "+ck.Key+" <value>`"
		}
	}
	return fmt.Errorf("%s line %d: %s is in plain text, but %s line %d declares it secret (project %s), so it must be encrypted; %s",
		file, line, ck.Key, pp.File, ck.Line, pp.Name, fix)
}

// declaredSecret is the plaintextSecret error of q's value when q is a
// key a user project's Pulumi.yaml declares secret (nil for any other
// question: a provider's secret stored in plain text, as MARA's example
// stores some, is only warned of).
func (s *Session) declaredSecret(q providers.Question) error {
	p, ok := s.Provider.Project(q.Project)
	if q.Project == "" || !ok || p.User == nil {
		return nil
	}
	for _, ck := range p.User.Project.Config {
		if ck.Key == q.Key && ck.Secret {
			return s.plaintextSecret(p.User.Project, ck, nil, "")
		}
	}
	return nil
}

func plainValue(v any) any {
	if s, ok := v.(resource.Secret); ok {
		return s.Element
	}
	return v
}

// ownFile is a user project's own stack config, read.
type ownFile struct {
	file *config.Stack
	vals map[string]any
}

// ownStackFile reads a project's own Pulumi.<stack>.yaml, opened with its
// own salt (nil when there is none).
func (s *Session) ownStackFile(ctx context.Context, pp *pulumiproject.Project) (*ownFile, string, error) {
	path := pp.StackFile(s.StackName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, path, nil
	}
	st, err := config.LoadStack(path)
	if err != nil {
		return nil, path, Invalid(err)
	}
	var c *config.Crypter
	if len(st.SecretEntries()) > 0 {
		salt := st.EncryptionSalt()
		if salt == "" {
			return nil, path, Invalid(fmt.Errorf("%s holds secrets but no encryptionsalt, so they cannot be read", path))
		}
		if c, err = s.openWith(salt, path, false); err != nil {
			return nil, path, err
		}
	}
	vals, err := st.Values(ctx, c)
	if err != nil {
		return nil, path, Invalid(fmt.Errorf("reading %s: %w", path, err))
	}
	return &ownFile{file: st, vals: vals}, path, nil
}

// ownHas reports whether the project a question comes from sets its key
// in its own stack config file.
func (s *Session) ownHas(q providers.Question) bool {
	if q.Project == "" {
		return false
	}
	p, ok := s.Provider.Project(q.Project)
	if !ok || p.User == nil {
		return false
	}
	st, err := config.LoadStack(p.User.Project.StackFile(s.StackName))
	return err == nil && st.Line(q.Key) > 0
}

// projects adapts the provider's projects to the orchestrator, the user
// projects with their runtimes and configs.
func (s *Session) projects(user *userRun) []orchestrate.Project {
	rt := s.Runtime()
	var out []orchestrate.Project
	for _, name := range s.Graph.Order() {
		p, _ := s.Provider.Project(name)
		op := orchestrate.Project{Name: p.Name, DependsOn: p.DependsOn}
		if p.Program != nil {
			op.Program = p.Program(rt)
		}
		if p.User != nil {
			op.Hosted, op.Config, op.Dir = user.hosted[name], user.config[name], p.User.Project.Dir
		}
		if p.OnSuccess != nil {
			hook := p.OnSuccess
			op.OnSuccess = func(ctx context.Context, in orchestrate.HookInput) error {
				return hook(ctx, providers.HookInput{Runtime: rt, Project: in.Project, Outputs: in.Outputs,
					Config: in.Config, Env: in.Env, Log: in.Log})
			}
		}
		out = append(out, op)
	}
	return out
}
