package runstate

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// pluginKey is a plugin as a registration names it (base: the base
// plugin of a parameterized package, "" for none).
type pluginKey struct{ pkg, version, url, base string }

// pluginLoader loads, once per package and version, the plugins that
// Config.Plugins does not hold, through Config.LoadPlugin.
type pluginLoader struct {
	load      func(ctx context.Context, pkg, version, downloadURL string) (resource.Plugin, error)
	loadParam func(ctx context.Context, pz resource.Parameterization, downloadURL string) (resource.Plugin, error)
	mu        sync.Mutex
	byKey     map[string]*loadedPlugin
	failed    error // the first load that failed
}

// loadedPlugin is one load; ready is closed once plugin or err is set.
type loadedPlugin struct {
	ready  chan struct{}
	plugin resource.Plugin
	err    error
}

// get loads pkg at version once (concurrent callers wait for the first).
func (l *pluginLoader) get(ctx context.Context, pkg, version, url string) (resource.Plugin, error) {
	return l.once(pkg+"@"+version, func() (resource.Plugin, error) { return l.load(ctx, pkg, version, url) })
}

// once runs load once per key (concurrent callers wait for the first).
func (l *pluginLoader) once(key string, load func() (resource.Plugin, error)) (resource.Plugin, error) {
	l.mu.Lock()
	if l.byKey == nil {
		l.byKey = make(map[string]*loadedPlugin)
	}
	e, ok := l.byKey[key]
	if !ok {
		e = &loadedPlugin{ready: make(chan struct{})}
		l.byKey[key] = e
	}
	l.mu.Unlock()
	if !ok {
		e.plugin, e.err = load()
		close(e.ready)
		if e.err != nil {
			l.mu.Lock()
			if l.failed == nil {
				l.failed = e.err
			}
			l.mu.Unlock()
		}
	}
	<-e.ready
	return e.plugin, e.err
}

// Plugin returns the plugin serving pkg at version ("": any): one of
// Config.Plugins when it serves that version, else one Config.LoadPlugin
// finds (or installs).
func (d *State) Plugin(ctx context.Context, pkg, version, url string) (resource.Plugin, error) {
	p, ok := d.plugins[pkg]
	if ok && (version == "" || d.loader.load == nil || servesVersion(p, version)) {
		return p, nil
	}
	if d.loader.load == nil {
		return nil, fmt.Errorf("no resource plugin serves package %q", pkg)
	}
	return d.loader.get(ctx, pkg, strings.TrimPrefix(version, "v"), url)
}

// PackagePlugin returns the plugin serving pkg at version: Plugin's, or
// for a parameterized package (pz not nil) its base plugin parameterized,
// one per package name and version.
func (d *State) PackagePlugin(ctx context.Context, pkg, version, url string, pz *resource.Parameterization) (resource.Plugin, error) {
	if pz == nil {
		return d.Plugin(ctx, pkg, version, url)
	}
	if d.loader.loadParam == nil {
		return nil, fmt.Errorf("package %s is parameterized (served by the %s plugin), which this operation cannot load", pz.Name, pz.Base)
	}
	key := "\x00" + pz.Name + "@" + pz.Version + "\x00" + pz.Base + "@" + pz.BaseVersion + "\x00" + string(pz.Value)
	return d.loader.once(key, func() (resource.Plugin, error) { return d.loader.loadParam(ctx, *pz, url) })
}

// PluginLoadError is the error of the first plugin that Config.LoadPlugin
// could not load in this operation (nil: none). A program's registration
// that named it failed with it, and the program may have relayed only its
// message: the operation's error keeps it as a cause (a plugin that cannot
// be had is the user's to install).
func (d *State) PluginLoadError() error {
	d.loader.mu.Lock()
	defer d.loader.mu.Unlock()
	return d.loader.failed
}

// servesVersion reports whether p is version (a built-in plugin, which has
// no version, serves any).
func servesVersion(p resource.Plugin, version string) bool {
	cp, ok := p.(resource.Configurable)
	return !ok || cp.Version() == "" || strings.TrimPrefix(cp.Version(), "v") == strings.TrimPrefix(version, "v")
}

// PluginFor returns the plugin serving the recorded resource res: its
// package at the version its provider records.
func (d *State) PluginFor(ctx context.Context, res *state.Resource) (resource.Plugin, error) {
	version, url := "", ""
	var pz *resource.Parameterization
	if prov := d.ProviderRecord(res.Provider); prov != nil {
		version, _ = prov.Inputs["version"].(string)
		if internal, ok := prov.Inputs["__internal"].(map[string]any); ok {
			url, _ = internal["pluginDownloadURL"].(string)
		}
		var err error
		if pz, err = resource.ParameterizationOf(prov.Type, prov.Inputs); err != nil {
			return nil, fmt.Errorf("the state of provider %s: %w; run `runner stack repair --project %s`", prov.URN, err, d.Project)
		}
	}
	p, err := d.PackagePlugin(ctx, resource.Package(res.Type), version, url, pz)
	if err != nil {
		return nil, fmt.Errorf("%w, needed for type %s of %s", err, res.Type, res.URN)
	}
	return p, nil
}
