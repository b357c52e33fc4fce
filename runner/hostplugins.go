package runner

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/plugincache"
	"github.com/runnerhq/runner/engine/pluginhost"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/runner/event"
)

// pluginCloseTimeout bounds how long the end of a run waits for the
// provider plugins to stop (each gets Cancel, SIGINT, then SIGKILL).
const pluginCloseTimeout = 15 * time.Second

// hostedPlugins starts the run's plugin host: one pool for the whole run,
// so every project that uses a provider plugin shares its process (one per
// package, version and configuration). Plugins start when first called.
// It returns the handles of the provider's declared plugins and the
// function that stops them, to be called once the run is over. On Ctrl-C
// (ctx done) every plugin is sent Cancel at once.
func (s *Session) hostedPlugins(ctx context.Context, environ []string, cfg map[string]any, sink event.Sink) ([]resource.Plugin, func()) {
	if len(s.Provider.Plugins) == 0 {
		return nil, func() {}
	}
	getenv := s.getenv
	redact := newRedactor(cfg, getenv("PULUMI_CONFIG_PASSPHRASE"))
	pool := pluginhost.NewPool(pluginhost.PoolOptions{
		Workspace: s.Workspace,
		Environ:   environ,
		Locate: func(pkg, version string) (string, error) {
			return plugincache.Find(pkg, version, getenv)
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
		Redact: redact,
	})
	handles := make([]resource.Plugin, 0, len(s.Provider.Plugins))
	for _, spec := range s.Provider.Plugins {
		handles = append(handles, pool.Plugin(spec.Name, spec.Version))
	}
	stopCancel := context.AfterFunc(ctx, func() {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := pool.Cancel(cctx); err != nil {
			sink.Emit(event.Event{Type: event.Warning, Time: time.Now(), Message: redact(err.Error())})
		}
	})
	return handles, func() {
		stopCancel()
		cctx, cancel := context.WithTimeout(context.Background(), pluginCloseTimeout)
		defer cancel()
		_ = pool.Close(cctx)
	}
}

// pluginLogEvent turns a plugin's log line into an event of the project its
// URN names: debug lines and ephemeral progress only with --debug, warnings
// as warnings and errors as warnings that say "error:".
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
		ev.Type, ev.Message = event.Warning, "error: "+e.Message
	}
	return ev, true
}

// newRedactor returns the function that replaces, in a plugin's output,
// every secret a plugin may print: the plaintext of each secret stack
// config value (a provider's credentials among them) and the passphrase
// the plugins inherit in their environment. Longer secrets are replaced
// first, so that a secret containing another is not half shown.
func newRedactor(cfg map[string]any, passphrase string) func(string) string {
	var secrets []string
	for _, v := range cfg {
		sec, ok := v.(resource.Secret)
		if !ok {
			continue
		}
		plain, ok := sec.Element.(string)
		if !ok {
			bare, _ := resource.UnsecretDeep(sec.Element)
			data, err := json.Marshal(bare)
			if err != nil {
				continue
			}
			plain = string(data)
		}
		if plain != "" {
			secrets = append(secrets, plain)
		}
	}
	if passphrase != "" {
		secrets = append(secrets, passphrase)
	}
	if len(secrets) == 0 {
		return func(s string) string { return s }
	}
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	pairs := make([]string, 0, 2*len(secrets))
	for _, sec := range secrets {
		pairs = append(pairs, sec, "[secret]")
	}
	return strings.NewReplacer(pairs...).Replace
}
