package runner

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/runnerhq/runner/engine/plugincache"
	"github.com/runnerhq/runner/providers"
)

// PluginInstall installs resource plugins into the plugin cache, shared
// with the Pulumi CLI (`runner plugin install`): one by name, or with
// ForProvider every plugin the provider declares. Progress goes to
// stderr; the result names what was installed and what was there already.
func PluginInstall(ctx context.Context, opts Options, o PluginInstallOptions) error {
	getenv, err := pluginEnv(opts)
	if err != nil {
		return err
	}
	specs, err := installSpecs(ctx, opts, o, getenv)
	if err != nil {
		return err
	}
	if specs, err = withChecksum(specs, o); err != nil {
		return err
	}
	io := streams(opts)
	iopts := plugincache.InstallOptions{Client: o.Client, Getenv: getenv, InsecureHTTP: o.InsecureHTTP,
		Progress: func(msg string) { fmt.Fprintln(io.Err, msg) }}
	var lines []string
	for _, spec := range specs {
		if o.Server != "" {
			spec.Server = o.Server
		}
		in, err := plugincache.Install(ctx, plugincache.Spec{Name: spec.Name, Version: spec.Version, Server: spec.Server, Checksums: spec.Checksums}, iopts)
		if refusedDownload(err) {
			err = Invalid(err)
		}
		if err != nil {
			if len(lines) > 0 {
				err = fmt.Errorf("%w (already done: %s)", err, strings.Join(lines, "; "))
			}
			return err
		}
		if in.AlreadyInstalled {
			lines = append(lines, fmt.Sprintf("Plugin %s %s is already installed (%s); nothing was downloaded.", in.Name, in.Version, in.Path))
		} else {
			lines = append(lines, fmt.Sprintf("Installed plugin %s %s (%s).", in.Name, in.Version, in.Path))
		}
		if p, ok := plugincache.OnPath(in.Name, getenv); ok {
			lines = append(lines, fmt.Sprintf("Note: %s on PATH is used before the cache whatever its version; set PULUMI_IGNORE_AMBIENT_PLUGINS=true to use the cache.", p))
		}
	}
	return OutputOf(opts).Result("%s", strings.Join(lines, "\n"))
}

// installSpecs returns the plugins to install: the provider's, or the one
// named, its version from the command line, else from a provider that
// declares the plugin, else the latest release.
func installSpecs(ctx context.Context, opts Options, o PluginInstallOptions, getenv func(string) string) ([]providers.PluginSpec, error) {
	if o.ForProvider {
		p, err := provider(opts, opts.Provider)
		if err != nil {
			return nil, Usage(err)
		}
		if len(p.Plugins) == 0 {
			return nil, Usage(fmt.Errorf("provider %s needs no resource plugins: there is nothing to install", p.Name))
		}
		return p.Plugins, nil
	}
	if err := plugincache.CheckSpec(o.Name, o.Version); err != nil {
		return nil, Usage(err)
	}
	if o.Version != "" {
		return []providers.PluginSpec{{Name: o.Name, Version: o.Version}}, nil
	}
	if spec, ok := declared(opts, o.Name); ok {
		return []providers.PluginSpec{spec}, nil
	}
	if o.Server != "" {
		return nil, Usage(fmt.Errorf("no provider declares plugin %s and a mirror cannot say which version is the latest: run `runner plugin install %s VERSION --server %s`", o.Name, o.Name, o.Server))
	}
	v, err := plugincache.Latest(ctx, o.Name, plugincache.InstallOptions{Client: o.Client, Getenv: getenv})
	if err != nil {
		return nil, err
	}
	return []providers.PluginSpec{{Name: o.Name, Version: v}}, nil
}

// declared returns plugin name as a provider declares it: the provider of
// the options first, then the others by name.
func declared(opts Options, name string) (providers.PluginSpec, bool) {
	reg, err := registry(opts)
	if err != nil {
		return providers.PluginSpec{}, false
	}
	ps := reg.All()
	if p, err := reg.Get(opts.Provider); err == nil {
		ps = append([]*providers.Provider{p}, ps...)
	}
	for _, p := range ps {
		for _, spec := range p.Plugins {
			if spec.Name == name {
				return spec, true
			}
		}
	}
	return providers.PluginSpec{}, false
}

// PluginRemove removes a plugin's versions from the plugin cache (`runner
// plugin rm`): version "" removes them all. A binary on PATH is never
// removed, and the result says so. Nothing to remove is a validation error.
func PluginRemove(opts Options, name, version string) error {
	if err := plugincache.CheckSpec(name, version); err != nil {
		return Usage(err)
	}
	getenv, err := pluginEnv(opts)
	if err != nil {
		return err
	}
	removed, err := plugincache.Remove(name, version, getenv)
	var lines []string
	for _, in := range removed {
		lines = append(lines, fmt.Sprintf("Removed plugin %s %s (%s).", in.Name, in.Version, filepath.Dir(in.Path)))
	}
	if err != nil {
		if len(lines) > 0 {
			err = fmt.Errorf("%w (already removed: %s)", err, strings.Join(lines, " "))
		}
		return err
	}
	onPath, ambient := plugincache.OnPath(name, getenv)
	pathNote := fmt.Sprintf("%s on PATH is not removed: runner never removes binaries on PATH (delete it yourself if you mean to).", onPath)
	if len(removed) == 0 {
		dir, _ := plugincache.Dir(getenv)
		what := strings.TrimSpace(name + " " + version)
		msg := fmt.Sprintf("plugin %s is not installed in %s: nothing was removed (see `runner plugin ls`)", what, dir)
		if ambient {
			msg += "; " + pathNote
		}
		return Invalid(errors.New(msg))
	}
	if ambient {
		lines = append(lines, pathNote)
	}
	return OutputOf(opts).Result("%s", strings.Join(lines, "\n"))
}

// withChecksum gives the one plugin named the SHA-256 of --checksum for
// this platform, in place of any a provider declares.
func withChecksum(specs []providers.PluginSpec, o PluginInstallOptions) ([]providers.PluginSpec, error) {
	if o.Checksum == "" {
		return specs, nil
	}
	if o.ForProvider {
		return nil, Usage(errors.New("--checksum names one archive's SHA-256: use it with `runner plugin install NAME VERSION`, not --provider"))
	}
	sum := strings.ToLower(strings.TrimPrefix(o.Checksum, "sha256:"))
	if _, err := hex.DecodeString(sum); err != nil || len(sum) != 64 {
		return nil, Usage(fmt.Errorf("--checksum %q is not a SHA-256: give its 64 hexadecimal digits (sha256: before them is allowed)", o.Checksum))
	}
	out := make([]providers.PluginSpec, len(specs))
	for i, spec := range specs {
		spec.Checksums = map[string]string{runtime.GOOS + "-" + runtime.GOARCH: sum}
		out[i] = spec
	}
	return out, nil
}

// refusedDownload reports whether err is an install refused before
// anything was installed: a checksum that differs, an archive or download
// over its limits, or plain http to another machine (exit 3).
func refusedDownload(err error) bool {
	var sum *plugincache.ChecksumError
	var lim *plugincache.LimitError
	var insecure *plugincache.InsecureHTTPError
	return errors.As(err, &sum) || errors.As(err, &lim) || errors.As(err, &insecure)
}
