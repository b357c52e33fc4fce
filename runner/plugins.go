package runner

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/plugincache"
	"github.com/runnerhq/runner/providers"
)

// pluginEnv returns the environment the plugin commands read PULUMI_HOME,
// PATH and GITHUB_TOKEN from: the process's, with the workspace's
// environment file over it when there is a workspace, as operations read
// it, so that a plugin lands where an operation looks for it.
func pluginEnv(opts Options) (func(string) string, error) {
	env, err := pluginEnvFile(opts)
	if err != nil {
		return nil, err
	}
	return envGetter(env), nil
}

// pluginEnvFile returns the workspace's environment file for the plugin
// commands (nil without a workspace: they need none).
func pluginEnvFile(opts Options) (*config.EnvFile, error) {
	ws, err := Workspace(opts)
	if err != nil {
		return nil, nil
	}
	env, err := config.LoadEnv(EnvFilePath(opts, ws))
	if err != nil {
		return nil, Usage(err)
	}
	return env, nil
}

// pluginListing is one plugin of `plugin ls`: Origin names where the
// environment file put it (envFileOrigin), "" when runner's own PATH or
// plugin cache holds it.
type pluginListing struct {
	plugincache.Installed
	Origin string `json:"origin,omitempty"`
}

// envGetter returns getenv with env's values over the process's.
func envGetter(env *config.EnvFile) func(string) string {
	return func(key string) string {
		if env != nil {
			if v, ok := env.Values[key]; ok {
				return v
			}
		}
		return os.Getenv(key)
	}
}

// MissingPluginsError is a provider whose resource plugins are not all
// installed: nothing was changed.
type MissingPluginsError struct {
	Provider string
	Missing  []*plugincache.NotInstalledError
}

func (e *MissingPluginsError) Error() string {
	var names, cmds []string
	for _, m := range e.Missing {
		names = append(names, m.Name+" "+m.Version)
		cmds = append(cmds, fmt.Sprintf("`runner plugin install %s %s`", m.Name, m.Version))
	}
	where := "on PATH or in the plugin cache"
	if len(e.Missing) > 0 && e.Missing[0].Dir != "" {
		where = "on PATH or in " + e.Missing[0].Dir
	}
	return fmt.Sprintf("provider %s needs resource plugins that are not installed %s: %s; install them with `runner plugin install --provider %s` (or one by one: %s); nothing was changed",
		e.Provider, where, strings.Join(names, ", "), e.Provider, strings.Join(cmds, ", "))
}

// Unwrap returns each plugin's *plugincache.NotInstalledError.
func (e *MissingPluginsError) Unwrap() []error {
	out := make([]error, len(e.Missing))
	for i, m := range e.Missing {
		out[i] = m
	}
	return out
}

// checkPlugins fails with a *MissingPluginsError (a validation error)
// unless every plugin the provider declares is installed.
func (s *Session) checkPlugins() error {
	return checkPlugins(s.Provider, s.getenv)
}

func checkPlugins(p *providers.Provider, getenv func(string) string) error {
	var missing []*plugincache.NotInstalledError
	for _, spec := range p.Plugins {
		_, err := plugincache.Find(spec.Name, spec.Version, getenv)
		var nie *plugincache.NotInstalledError
		switch {
		case errors.As(err, &nie):
			missing = append(missing, nie)
		case err != nil:
			return fmt.Errorf("provider %s: looking for its plugin %s %s: %w", p.Name, spec.Name, spec.Version, err)
		}
	}
	if len(missing) > 0 {
		return Invalid(&MissingPluginsError{Provider: p.Name, Missing: missing})
	}
	return nil
}

// PluginList prints the resource plugins on PATH and in the plugin cache
// (`runner plugin ls`).
func PluginList(opts Options) error {
	env, err := pluginEnvFile(opts)
	if err != nil {
		return err
	}
	getenv := envGetter(env)
	found, err := plugincache.List(getenv)
	if err != nil {
		return err
	}
	list := make([]pluginListing, len(found))
	for i, in := range found {
		list[i] = pluginListing{Installed: in, Origin: envFileOrigin(in.Path, env)}
	}
	return OutputOf(opts).Listing(list, func(w io.Writer) error {
		if len(list) == 0 {
			dir, _ := plugincache.Dir(getenv)
			_, err := fmt.Fprintf(w, "No resource plugins on PATH or in %s; install one with `runner plugin install NAME VERSION`.\n", dir)
			return err
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tVERSION\tSIZE\tMODIFIED\tPATH")
		for _, in := range list {
			v := in.Version
			if in.Ambient {
				v = "(on PATH)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", in.Name, v, size(in.Size), in.Modified.Local().Format("2006-01-02 15:04:05"), in.Path)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, in := range list {
			if in.Origin != "" {
				fmt.Fprintf(w, "Note: %s %s was found in %s, not on runner's own PATH or in its plugin cache.\n", in.Name, in.Path, in.Origin)
			}
		}
		return nil
	})
}

// size writes n bytes for people.
func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// PluginInstallOptions are the arguments and flags of `runner plugin install`.
type PluginInstallOptions struct {
	// Name and Version name the plugin (Version "": the version a provider
	// declares, else the latest release).
	Name, Version string
	// Server is --server: a mirror in place of Pulumi's download sources.
	Server string
	// ForProvider installs every plugin of the provider of the options.
	ForProvider bool
	// Checksum is --checksum: the SHA-256 (hex, "sha256:" allowed before
	// it) the downloaded archive must have; only with Name.
	Checksum string
	// InsecureHTTP is --insecure-http: plain http:// to another machine is
	// allowed (at the start and at every redirect).
	InsecureHTTP bool
	// Client makes the downloads (nil: http.DefaultClient).
	Client *http.Client
}
