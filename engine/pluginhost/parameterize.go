package pluginhost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/status"

	"github.com/runnerhq/runner/engine/resource"
)

// Parameterization makes a base plugin serve another package: the base
// plugin, found by its own name and version, is sent Parameterize with the
// package's name, version and value before any other call.
type Parameterization = resource.Parameterization

// ParameterizedPlugin returns the plugin of the package pz.Name at
// pz.Version, served by the base plugin parameterized: its processes are
// its own (one parameterization a process, as Pulumi runs them), each sent
// Parameterize after GetPluginInfo and before any other call.
func (pool *Pool) ParameterizedPlugin(pz Parameterization) resource.Configurable {
	sum := sha256.New()
	for _, s := range []string{pz.Base, pz.BaseVersion} {
		sum.Write([]byte(s + "\x00"))
	}
	sum.Write(pz.Value)
	h := &handle{pool: pool, pkg: pz.Name, version: pz.Version, variant: hex.EncodeToString(sum.Sum(nil)[:12])}
	pool.mu.Lock()
	if pool.params == nil {
		pool.params = map[string]*Parameterization{}
	}
	pool.params[pz.Name+"\x00"+h.slot()] = &pz
	pool.mu.Unlock()
	return h
}

// shownVersion is the version of the package the plugin serves, for
// messages.
func (p *plugin) shownVersion() string {
	if p.param != nil {
		return p.param.Version
	}
	return p.version
}

// parameterizationOf returns the parameterization of the package pkg at
// version (nil: a plugin of its own), pool.mu held.
func (pool *Pool) parameterizationOf(pkg, version string) *Parameterization {
	return pool.params[pkg+"\x00"+version]
}

// parameterize sends the plugin its parameterization and checks the
// package it says it now serves.
func (p *plugin) parameterize(ctx context.Context, path string) error {
	pz := p.param
	resp, err := p.rpc.Parameterize(ctx, &pulumirpc.ParameterizeRequest{
		Parameters: &pulumirpc.ParameterizeRequest_Value{Value: &pulumirpc.ParameterizeRequest_ParametersValue{
			Name: pz.Name, Version: pz.Version, Value: pz.Value}},
	})
	if err != nil {
		return fmt.Errorf("the %s plugin (%s) could not be parameterized to serve package %s %s: %s",
			pz.Base, path, pz.Name, pz.Version, p.pool.redact.apply(status.Convert(err).Message()))
	}
	if v := strings.TrimPrefix(resp.GetVersion(), "v"); resp.GetName() != pz.Name || v != "" && v != strings.TrimPrefix(pz.Version, "v") {
		return fmt.Errorf("the %s plugin (%s), parameterized to serve package %s %s, says it serves %s %s instead",
			pz.Base, path, pz.Name, pz.Version, resp.GetName(), resp.GetVersion())
	}
	return nil
}
