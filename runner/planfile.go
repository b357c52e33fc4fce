package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/atomicfile"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/internal/boundedfile"
	"github.com/runnerhq/runner/runner/orchestrate"
)

// PlanFileVersion is the version of the plan file `preview --out` writes
// and `up --plan` reads.
const PlanFileVersion = 1

// planFile is the whole graph's plan as one JSON document: what it was
// made for, checksums of the files whose change would void it, and each
// project's engine plan (engine.MarshalPlan: secrets encrypted).
type planFile struct {
	Version     int               `json:"version"`
	Stack       string            `json:"stack"`
	Provider    string            `json:"provider"`
	Targets     []string          `json:"targets,omitempty"`
	Refresh     bool              `json:"refresh,omitempty"`
	Config      fileSum           `json:"config"`
	Environment fileSum           `json:"environment"`
	Created     time.Time         `json:"created"`
	Projects    []json.RawMessage `json:"projects"`

	path string // where it was read from
}

// fileSum is the checksum of a file's bytes (for the stack config:
// ciphertexts, never plaintexts); SHA256 is "" when the file does not
// exist.
type fileSum struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256,omitempty"`
}

// checkPlanFlags refuses flags that a plan file cannot go with: the plan
// decides the targets and whether to refresh.
func checkPlanFlags(o OpOptions) error {
	switch {
	case o.PlanFile != "" && o.Operation != orchestrate.Up:
		return Usage(fmt.Errorf("--plan is a flag of up, not of %s", o.Operation))
	case o.PlanOut != "" && o.Operation != orchestrate.Preview:
		return Usage(fmt.Errorf("--out is a flag of preview, not of %s", o.Operation))
	case o.PlanFile != "" && len(o.Targets) > 0:
		return Usage(fmt.Errorf("--plan cannot go with --target: the plan %s names the projects it covers; make a plan of other targets with `runner preview --target PROJECT --out FILE`", o.PlanFile))
	case o.PlanFile != "" && o.Refresh:
		return Usage(fmt.Errorf("--plan cannot go with --refresh: the plan %s says whether it read the resources back; make a new plan with `runner preview --refresh --out FILE`", o.PlanFile))
	case o.PlanOut != "":
		if err := checkWritable(o.PlanOut, "the plan", "--out", "plan.json"); err != nil {
			return Usage(err)
		}
	}
	return nil
}

// checkPlanOut refuses an --out that names the stack config or the
// environment file, which the plan would replace.
func (s *Session) checkPlanOut(out string) error {
	return s.refuseWorkspaceFile(out, s.ConfigPath, "the plan", "--out")
}

// refuseWorkspaceFile refuses (a usage error) to write what to path when
// path is the stack config configPath or the environment file, which it
// would replace.
func (s *Session) refuseWorkspaceFile(path, configPath, what, flag string) error {
	st, err := os.Stat(path)
	if path == "" || err != nil {
		return nil
	}
	for _, f := range []struct{ what, path string }{{"the stack config", configPath}, {"the environment file", s.envPath()}} {
		if kept, err := os.Stat(f.path); err == nil && os.SameFile(st, kept) {
			return Usage(fmt.Errorf("cannot write %s to %s: it is %s, which %s would replace; give another %s", what, path, f.what, what, flag))
		}
	}
	return nil
}

// envPath is the environment file's path ("" without one).
func (s *Session) envPath() string {
	if s.Env == nil {
		return ""
	}
	return s.Env.Path
}

// sums returns the checksums of the stack config and environment files.
func (s *Session) sums() (cfg, env fileSum, err error) {
	sum := func(path string) (fileSum, error) {
		f := fileSum{Path: path}
		if rel, err := filepath.Rel(s.Workspace, path); err == nil && filepath.IsLocal(rel) {
			f.Path = rel
		}
		kind := boundedfile.StackConfig
		if path != s.ConfigPath {
			kind = boundedfile.Environment
		}
		data, err := boundedfile.ReadFile(path, kind)
		if errors.Is(err, fs.ErrNotExist) {
			return f, nil
		}
		if boundedfile.IsRefused(err) {
			return f, Invalid(err)
		}
		if err != nil {
			return f, fmt.Errorf("reading %s for its checksum: %w", path, err)
		}
		h := sha256.Sum256(data)
		f.SHA256 = hex.EncodeToString(h[:])
		return f, nil
	}
	if cfg, err = sum(s.ConfigPath); err != nil {
		return cfg, env, err
	}
	env, err = sum(s.Env.Path)
	return cfg, env, err
}

// writePlan writes the preview's plans to o.PlanOut, mode 0600,
// atomically.
func (s *Session) writePlan(ctx context.Context, o OpOptions, sum *orchestrate.Summary, c resource.Crypter) error {
	cfg, env, err := s.sums()
	if err != nil {
		return fmt.Errorf("writing the plan to %s: %w", o.PlanOut, err)
	}
	pf := planFile{Version: PlanFileVersion, Stack: s.StackName, Provider: s.Provider.Name, Targets: o.Targets,
		Refresh: o.Refresh, Config: cfg, Environment: env, Created: time.Now().UTC()}
	for _, name := range s.Graph.Order() { // dependency order
		p := sum.Plans[name]
		if p == nil {
			continue
		}
		data, err := engine.MarshalPlan(ctx, p, c)
		if err != nil {
			return fmt.Errorf("writing the plan to %s: project %s: %w", o.PlanOut, name, err)
		}
		pf.Projects = append(pf.Projects, data)
	}
	data, err := json.MarshalIndent(pf, "", "  ")
	if err != nil {
		return fmt.Errorf("writing the plan to %s: %w", o.PlanOut, err)
	}
	if err := atomicfile.Write(o.PlanOut, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("writing the plan to %s: %w", o.PlanOut, err)
	}
	return nil
}

// readPlan checks the plan flags of o, then reads the plan file of o (nil
// when none) and checks, before anything else, that it is a plan of this
// version for this stack and provider, and that the stack config and
// environment files are still those it was made with. It sets o's targets
// and refresh to the plan's.
func (s *Session) readPlan(o *OpOptions) (*planFile, error) {
	if err := checkPlanFlags(*o); err != nil {
		return nil, err
	}
	if err := s.checkPlanOut(o.PlanOut); err != nil || o.PlanFile == "" {
		return nil, err
	}
	data, err := boundedfile.ReadFile(o.PlanFile, boundedfile.Plan)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Usage(fmt.Errorf("--plan %s: the file does not exist; make it with `runner preview --out %s`", o.PlanFile, o.PlanFile))
	}
	if boundedfile.IsRefused(err) {
		return nil, Invalid(fmt.Errorf("--plan: %w", err))
	}
	if err != nil {
		return nil, Usage(fmt.Errorf("--plan %s: the file cannot be read: %w", o.PlanFile, err))
	}
	pf := &planFile{path: o.PlanFile}
	invalid := func(format string, args ...any) error {
		return Invalid(fmt.Errorf("the plan %s "+format, append([]any{o.PlanFile}, args...)...))
	}
	if err := json.Unmarshal(data, pf); err != nil {
		return nil, invalid("is not a plan file (%s: %w); make one with `runner preview --out %s`", jsonWhere(data, err), err, o.PlanFile)
	}
	switch {
	case pf.Version != PlanFileVersion:
		return nil, invalid("has version %d and this runner reads version %d; run `runner preview --out %s` again", pf.Version, PlanFileVersion, o.PlanFile)
	case pf.Stack != s.StackName:
		return nil, invalid("is a plan of stack %s, not of stack %s; select that stack (--stack %s) or make a plan of this one", pf.Stack, s.StackName, pf.Stack)
	case pf.Provider != s.Provider.Name:
		return nil, invalid("is a plan of provider %s, not of provider %s; pass --provider %s or make a plan with this one", pf.Provider, s.Provider.Name, pf.Provider)
	}
	var unknown *orchestrate.UnknownTargetError
	if err := orchestrate.CheckTargets(s.Graph.Order(), pf.Targets); errors.As(err, &unknown) {
		return nil, invalid("names project %s, which provider %s does not have (its projects: %s); make a new plan with `runner preview --out %s`",
			unknown.Target, s.Provider.Name, strings.Join(unknown.Known, ", "), o.PlanFile)
	}
	o.Targets, o.Refresh = pf.Targets, pf.Refresh
	return pf, s.checkSums(pf)
}

// checkSums refuses the plan when the stack config or environment file
// changed since it was made: a plan file, or (path "") the plan up showed
// on a terminal before asking.
func (s *Session) checkSums(pf *planFile) error {
	cfg, env, err := s.sums()
	if err != nil {
		return err
	}
	what, again := "the plan "+pf.path, fmt.Sprintf("run `runner preview --out %s` again", pf.path)
	if pf.path == "" {
		what, again = "the plan shown", "run up again to see the new plan"
	}
	if cfg.SHA256 != pf.Config.SHA256 {
		return Invalid(fmt.Errorf("%s cannot be executed, so nothing was changed: the stack config changed since the plan was made (%s); %s", what, s.ConfigPath, again))
	}
	if env.SHA256 != pf.Environment.SHA256 {
		return Invalid(fmt.Errorf("%s cannot be executed, so nothing was changed: the environment file changed since the plan was made (%s); %s", what, s.Env.Path, again))
	}
	return nil
}

// decode returns the plan file's plans by project, secrets decrypted by c,
// after checking the files it depends on once more (validation may have
// written them).
func (s *Session) decode(ctx context.Context, pf *planFile, c resource.Crypter) (map[string]*engine.Plan, error) {
	if err := s.checkSums(pf); err != nil {
		return nil, err
	}
	plans := make(map[string]*engine.Plan, len(pf.Projects))
	for i, raw := range pf.Projects {
		p, err := engine.UnmarshalPlan(ctx, raw, c)
		if err != nil {
			return nil, Invalid(fmt.Errorf("the plan %s, project %d: %w", pf.path, i+1, err))
		}
		if plans[p.Project] != nil {
			return nil, Invalid(fmt.Errorf("the plan %s has project %s twice; make a new plan with `runner preview --out %s`", pf.path, p.Project, pf.path))
		}
		plans[p.Project] = p
	}
	return plans, nil
}

// planRefused turns a plan refused before any project started into a
// validation error (exit 3) saying how to make a new plan.
func planRefused(err error, o OpOptions) error {
	var refused *orchestrate.PlanRefusedError
	if !errors.As(err, &refused) {
		return err
	}
	if o.PlanFile != "" {
		return Invalid(fmt.Errorf("%s: %w; run `runner preview --out %s` again", o.PlanFile, err, o.PlanFile))
	}
	return Invalid(fmt.Errorf("%w; run up again to see the new plan", err))
}

// jsonWhere says on which line of data the JSON error err is.
func jsonWhere(data []byte, err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	offset := int64(len(data))
	switch {
	case errors.As(err, &syntax):
		offset = syntax.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	}
	return fmt.Sprintf("line %d", bytes.Count(data[:min(max(offset, 0), int64(len(data)))], []byte("\n"))+1)
}
