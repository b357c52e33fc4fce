package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/plugincache"
	"github.com/runnerhq/runner/engine/pluginhost"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/runner/event"
)

// pluginLoaders find the plugins a program's registrations name
// (engine.Options.LoadPlugin and LoadParameterized).
type pluginLoaders struct {
	plugin func(ctx context.Context, pkg, version, downloadURL string) (resource.Plugin, error)
	param  func(ctx context.Context, pz resource.Parameterization, downloadURL string) (resource.Plugin, error)
}

// pluginLoader returns the run's loader of plugins by package, as Pulumi
// finds them: on PATH, then in the plugin cache; a missing one is
// installed (from downloadURL when given), with progress in the log,
// unless PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION is set. A plugin that
// cannot be had is a validation error (exit 3) naming it, its version and
// the `runner plugin install` command. A parameterized package's base
// plugin is found (or installed) so, and served parameterized.
func (s *Session) pluginLoader(pool *pluginhost.Pool, sink event.Sink) pluginLoaders {
	return pluginLoaders{
		plugin: func(ctx context.Context, pkg, version, url string) (resource.Plugin, error) {
			p, err := s.findOrInstall(ctx, pool, sink, pkg, version, url)
			if err != nil {
				return nil, Invalid(&resource.UnavailablePluginError{Package: pkg, Version: version, Err: err})
			}
			return p, nil
		},
		param: func(ctx context.Context, pz resource.Parameterization, url string) (resource.Plugin, error) {
			if _, err := s.findOrInstall(ctx, pool, sink, pz.Base, pz.BaseVersion, url); err != nil {
				return nil, Invalid(&resource.UnavailablePluginError{Package: pz.Base, Version: pz.BaseVersion,
					Err: fmt.Errorf("%w (the base plugin of package %s %s)", err, pz.Name, pz.Version)})
			}
			return pool.ParameterizedPlugin(pz), nil
		},
	}
}

// findOrInstall finds the plugin of pkg at version, installing it when
// it can (pluginLoader).
func (s *Session) findOrInstall(ctx context.Context, pool *pluginhost.Pool, sink event.Sink, pkg, version, url string) (resource.Plugin, error) {
	getenv := s.getenv
	_, err := plugincache.Find(pkg, version, getenv)
	var missing *plugincache.NotInstalledError
	switch {
	case err == nil:
		return pool.Plugin(pkg, version), nil
	case !errors.As(err, &missing):
		return nil, fmt.Errorf("the resource plugin %s: %w", pkg, err)
	case version == "":
		return nil, fmt.Errorf("%w (the program names no version, so none is downloaded)", err)
	case getenv("PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION") != "":
		return nil, fmt.Errorf("%w (PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION is set, so it is not downloaded)", err)
	}
	progress := func(msg string) {
		sink.Emit(event.Event{Type: event.Log, Time: time.Now(), Stack: s.StackName, Message: msg})
	}
	spec := plugincache.Spec{Name: pkg, Version: version, Server: url}
	if _, ierr := plugincache.Install(ctx, spec, plugincache.InstallOptions{Getenv: getenv, Progress: progress}); ierr != nil {
		return nil, fmt.Errorf("the resource plugin %s %s is not installed and could not be installed: %w; install it with `runner plugin install %s %s`",
			pkg, version, ierr, pkg, version)
	}
	return pool.Plugin(pkg, version), nil
}
