// Package providers holds the infrastructure providers: each chooses the
// projects of an environment, the edges between them, the config questions
// it needs answered, and the hooks run after its projects succeed.
package providers

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/projects/pulumiproject"
)

// Category groups projects the way MARA does.
type Category string

// The project categories, in the order they are shown.
const (
	Infrastructure Category = "infrastructure"
	Kubernetes     Category = "kubernetes"
	Application    Category = "application"
)

// Categories lists the categories in display order.
var Categories = []Category{Infrastructure, Kubernetes, Application}

// Runtime is what a provider's programs and hooks may know of the run.
type Runtime struct {
	// Workspace is the absolute path of the workspace.
	Workspace string
	// DataDir is where the provider's local files go (<state dir>/<provider>/<stack>).
	DataDir string
	// Executable is the runner binary.
	Executable string
	// Stack is the stack name.
	Stack string
	// Environ is the environment what runner starts runs with (the
	// process's, then the environment file's values).
	Environ []string
}

// Project is one unit of infrastructure of a provider.
type Project struct {
	Name        string
	Category    Category
	Description string
	// DependsOn names the projects that must be deployed first; their
	// outputs are read by stack reference.
	DependsOn []string
	// Program builds the project's program for a run (nil: not implemented).
	Program func(rt Runtime) engine.Program
	// OnSuccess runs after a successful up of the project (may be nil).
	OnSuccess Hook
	// User is set for a user's own Pulumi project (a folder named in
	// runner.yaml) instead of Program: its program runs through its
	// language runtime against the engine's ResourceMonitor.
	User *UserProject
}

// UserProject is a user's Pulumi project folder as a project.
type UserProject struct {
	// Project is its Pulumi.yaml.
	Project *pulumiproject.Project
	// Hosted returns the runtime that runs its program. An error says what
	// is missing to start it (node, a language host, node_modules) and how
	// to get it: validation stops on it before anything changes.
	Hosted func(rt Runtime) (source.Hosted, error)
}

// Hook is an on_success hook.
type Hook func(ctx context.Context, in HookInput) error

// HookInput is what a hook receives.
type HookInput struct {
	Runtime Runtime
	Project string
	// Outputs are the project's outputs (secrets as resource.Secret).
	Outputs resource.PropertyMap
	// Config is the stack config ("namespace:key" -> value).
	Config map[string]any
	// Env is the environment of the run.
	Env map[string]string
	// Log writes into the project's block of the output.
	Log io.Writer
}

// Question is a config value the provider needs.
type Question struct {
	// Key is the config key, "namespace:key".
	Key string
	// Message is the prompt shown to the user.
	Message string
	// Help explains the value.
	Help string
	// Default returns the suggested value ("" for none), possibly from the
	// environment.
	Default func(env func(string) string) string
	// Choices, when set, are the only accepted answers.
	Choices []string
	// ChoicesFrom, when set and Choices is not, lists the only accepted
	// answers from the answers already given (get returns a key's value):
	// the contexts of the kubeconfig file another key names, say. An empty
	// list accepts any answer Validate accepts.
	ChoicesFrom func(get func(key string) (string, bool)) []string
	// Secret values are asked without echo and stored encrypted.
	Secret bool
	// Optional values may stay unset.
	Optional bool
	// Validate checks an answer (nil: anything non-empty).
	Validate func(value string) error
	// Agrees, when set, checks an answer against the others already given
	// (get returns a key's value): the zones against the region, say. Its
	// error names the other key and its value. On a terminal a value that
	// disagrees is asked again; without one it is an error.
	Agrees func(value string, get func(key string) (string, bool)) error
	// Project, when set, is the user project whose Pulumi.yaml requires
	// the key: its own Pulumi.<stack>.yaml may answer it too.
	Project string
	// DefaultFrom, when set, derives the default from the answers already
	// given (the region from the zones, say) and comes before Default, so
	// that no default contradicts them. "" means it has none.
	DefaultFrom func(get func(key string) (string, bool)) string
	// SetBy are environment variables (of the process or the environment
	// file) that answer the question in its place: when one is set, the
	// key is neither required nor asked (DIGITALOCEAN_TOKEN for
	// digitalocean:token, say).
	SetBy []string
}

// Provider is an infrastructure provider.
type Provider struct {
	Name        string
	Description string
	Projects    []Project
	Questions   []Question
	// Validate checks the config as a whole after each question's own
	// validation (nil: nothing more). get returns a key's value.
	Validate func(get func(key string) (string, bool)) error
	// Plugins are the Pulumi resource plugins the provider's projects need:
	// validate and every operation check that each is installed before
	// anything changes, and `runner plugin install --provider NAME`
	// installs them.
	Plugins []PluginSpec
}

// PluginSpec is a Pulumi resource plugin (pulumi-resource-<Name>) at one
// version.
type PluginSpec struct {
	// Name is the plugin's package name (aws, kubernetes).
	Name string
	// Version is the exact semantic version the projects were written for.
	Version string
	// Server is where to download it instead of Pulumi's defaults (the
	// package's pluginDownloadURL; "" for Pulumi's own plugins).
	Server string
	// Checksums are the SHA-256 sums (hex) of the release asset by
	// platform ("linux-amd64"), checked when known.
	Checksums map[string]string
	// Help is what runner tells a user whose plugin refused its
	// configuration (its Configure failed: credentials missing or wrong),
	// after the plugin's message: what to set, e.g. the environment
	// variables or `runner config set` commands ("": nothing).
	Help string
	// StackConfig says the projects use the plugin's default provider,
	// configured from the stack config's "<Name>:<key>" values (aws:region,
	// aws:profile): preview, up and refresh check that configuration
	// (CheckConfig, Configure) before any project runs, so that missing
	// credentials stop the run before anything is written.
	StackConfig bool
	// Identity is how the plugin's resources are named by their inputs
	// (nil: they are not), so that a create interrupted before the plugin
	// answered (runner killed) is read back by that ID and adopted, or made
	// again when absent, with no person's help.
	Identity resource.IdentityFunc
	// Lookup is how the plugin's resources that the cloud names (a
	// cluster's UUID) but the user names too (its name or label) are found
	// through one of the plugin's own functions (nil: none), so that an
	// interrupted create is adopted or made again as with Identity.
	Lookup resource.LookupFunc
	// OwnEnv are environment variables (the plugin's API token) that only
	// this plugin receives: every other plugin of the run starts without
	// them, and their values are masked in what plugins print.
	OwnEnv []string
}

// Project returns the project named name.
func (p *Provider) Project(name string) (*Project, bool) {
	for i := range p.Projects {
		if p.Projects[i].Name == name {
			return &p.Projects[i], true
		}
	}
	return nil, false
}

// UnknownError is a provider name that is not registered.
type UnknownError struct {
	Name  string
	Known []string
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("there is no provider %q; the providers are: %s (see `runner providers`)", e.Name, strings.Join(e.Known, ", "))
}

// StaticProgram adapts a program that needs nothing of the run to
// Project.Program.
func StaticProgram(p engine.Program) func(Runtime) engine.Program {
	return func(Runtime) engine.Program { return p }
}

// Constant is a Question.Default that is always v.
func Constant(v string) func(func(string) string) string {
	return func(func(string) string) string { return v }
}

// NonEmpty is a Question.Validate that refuses an empty or blank answer.
func NonEmpty(v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("must not be empty")
	}
	return nil
}

// Matches is a Question.Validate that accepts an answer matching pattern
// (a regular expression) and otherwise says what it must be.
func Matches(pattern, what string) func(string) error {
	re := regexp.MustCompile(pattern)
	return func(v string) error {
		if !re.MatchString(v) {
			return fmt.Errorf("must be %s, not %q", what, v)
		}
		return nil
	}
}
