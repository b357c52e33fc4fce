package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugincache"
	"github.com/runnerhq/runner/engine/pluginhost"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/runner/event"
)

// pluginCloseTimeout bounds how long the end of a run waits for the
// provider plugins to stop (each gets Cancel, SIGINT, then SIGKILL).
const pluginCloseTimeout = 15 * time.Second

// hostedPlugins starts the run's plugin host: one pool for the whole run,
// so every project that uses a provider plugin shares its process (one per
// package, version and configuration). Plugins start when first called.
// It returns the handles of the provider's declared plugins, the loader of
// any other plugin a program's registration names (pluginLoader), and the
// function that stops them all, to be called once the run is over. On
// Ctrl-C (ctx done) every plugin is sent Cancel at once.
func (s *Session) hostedPlugins(ctx context.Context, environ []string, sink event.Sink, secrets []string) ([]resource.Plugin, pluginLoaders, func()) {
	getenv := s.getenv
	origins := &originNotes{env: s.Env, sink: sink}
	pool := pluginhost.NewPool(pluginhost.PoolOptions{
		Workspace: s.Workspace,
		Environ:   environ,
		Locate: func(pkg, version string) (string, error) {
			path, err := plugincache.Find(pkg, version, getenv)
			if err == nil {
				origins.note(pkg, version, path)
			}
			return path, err
		},
		Log: func(e pluginhost.LogEntry) {
			if ev, ok := s.pluginLogEvent(e); ok {
				sink.Emit(ev)
			}
		},
		Debug: func(line string) {
			if s.Opts.Debug {
				sink.Emit(event.Event{Type: event.Log, Time: time.Now(), Stack: s.StackName, Message: line})
			}
		},
		// The plugins inherit the passphrase in their environment; the pool
		// itself masks the secret config it gives them; secrets are the
		// stack's secret config, which a program may pass on in plain.
		Secrets:       append(append(ownEnvValues(s.Provider.Plugins, getenv), secrets...), getenv("PULUMI_CONFIG_PASSPHRASE")),
		OwnEnv:        ownEnv(s.Provider.Plugins),
		ConfigureHelp: byPackage(s.Provider.Plugins, func(p providers.PluginSpec) (string, bool) { return p.Help, p.Help != "" }),
		Identity:      byPackage(s.Provider.Plugins, func(p providers.PluginSpec) (resource.IdentityFunc, bool) { return p.Identity, p.Identity != nil }),
		Lookup:        byPackage(s.Provider.Plugins, func(p providers.PluginSpec) (resource.LookupFunc, bool) { return p.Lookup, p.Lookup != nil }),
	})
	handles := make([]resource.Plugin, 0, len(s.Provider.Plugins))
	for _, spec := range s.Provider.Plugins {
		handles = append(handles, pool.Plugin(spec.Name, spec.Version))
	}
	stopCancel := context.AfterFunc(ctx, func() {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := pool.Cancel(cctx); err != nil {
			sink.Emit(event.Event{Type: event.Warning, Time: time.Now(), Message: err.Error()})
		}
	})
	return handles, s.pluginLoader(pool, sink), func() {
		stopCancel()
		cctx, cancel := context.WithTimeout(context.Background(), pluginCloseTimeout)
		defer cancel()
		_ = pool.Close(cctx)
	}
}

// preflight checks, before any project runs, the configuration of each
// plugin the provider configures from the stack config
// (PluginSpec.StackConfig): a refusal (no credentials, say) stops preview,
// up and refresh before anything is written, with the plugin's message and
// the provider's help (exit 3). hosted are the handles hostedPlugins
// returned, in the order of the provider's plugins. Destroy configures
// from the recorded config instead and is not checked.
func (s *Session) preflight(ctx context.Context, hosted []resource.Plugin, cfg map[string]any) error {
	for i, spec := range s.Provider.Plugins {
		cp, ok := hosted[i].(resource.Configurable)
		if !spec.StackConfig || !ok {
			continue
		}
		if err := engine.CheckStackConfig(ctx, cp, s.StackName, cfg); err != nil {
			if IsValidation(err) {
				return fmt.Errorf("%w\nnothing was changed", err)
			}
			return fmt.Errorf("checking the configuration of the %s plugin before any project runs: %w", spec.Name, err)
		}
	}
	return nil
}

// byPackage collects, by package, one setting of each plugin that has it
// (set reports whether it does): the Help appended to a refused
// configuration, the identity rule, the lookup rule.
func byPackage[T any](specs []providers.PluginSpec, get func(providers.PluginSpec) (T, bool)) map[string]T {
	out := make(map[string]T)
	for _, s := range specs {
		if v, ok := get(s); ok {
			out[s.Name] = v
		}
	}
	return out
}

// pluginLogEvent turns a plugin's log line into an event of the project its
// URN names: debug lines and ephemeral progress only with --debug, warnings
// as warnings and errors as warnings of Severity error.
func (s *Session) pluginLogEvent(e pluginhost.LogEntry) (event.Event, bool) {
	ev := event.Event{Type: event.Log, Time: time.Now(), Stack: s.StackName, Message: e.Message, URN: string(e.URN)}
	if e.URN.Valid() {
		ev.Project = e.URN.Project()
	}
	if (e.Severity == "debug" || e.Ephemeral) && !s.Opts.Debug {
		return ev, false
	}
	switch e.Severity {
	case "warning":
		ev.Type = event.Warning
	case "error":
		ev.Type, ev.Severity = event.Warning, event.SeverityError
	}
	return ev, true
}

// ownEnv maps each environment variable a plugin owns (PluginSpec.OwnEnv)
// to its package.
func ownEnv(specs []providers.PluginSpec) map[string]string {
	out := make(map[string]string)
	for _, s := range specs {
		for _, name := range s.OwnEnv {
			out[name] = s.Name
		}
	}
	return out
}

// ownEnvValues are the values of the variables plugins own (tokens), to
// be masked in what plugins print.
func ownEnvValues(specs []providers.PluginSpec, getenv func(string) string) []string {
	var out []string
	for _, s := range specs {
		for _, name := range s.OwnEnv {
			if v := getenv(name); v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// configSecrets are the plaintext strings of the stack's secret config
// values (shared, and each user project's own), which a plugin may print
// when a program passes one on in a plain input.
func configSecrets(shared map[string]any, user *userRun) []string {
	var out []string
	add := func(m map[string]any) {
		resource.Walk(resource.PropertyMap(m), func(v any, secret bool) bool {
			if s, ok := v.(string); ok && secret {
				out = append(out, s)
			}
			return true
		})
	}
	add(shared)
	if user != nil {
		for _, m := range user.config {
			add(m)
		}
	}
	return out
}
