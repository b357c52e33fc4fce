package engine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
)

// startingProvider is a provider whose process can be started ahead.
type startingProvider struct {
	*plugintest.Provider
	mu      sync.Mutex
	started []string // URN and inputs of each Start
}

func (p *startingProvider) Start(urn resource.URN, inputs resource.PropertyMap) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started = append(p.started, fmt.Sprintf("%s %v", urn, map[string]any(inputs)))
}

func (p *startingProvider) starts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.started...)
}

// listing is a hosted program that names the packages it needs.
type listing struct {
	hostedFunc
	pkgs []source.Package
}

func (l listing) RequiredPackages(context.Context, source.RunRequest) ([]source.Package, error) {
	return l.pkgs, nil
}

// TestHostedStartsDefaultProviderEarly checks that the plugin of a package
// the program names is started, with its default provider's inputs, before
// the program runs, and that nothing is checked or configured until a
// resource of the package is registered (a program that registers none
// leaves no provider in the state).
func TestHostedStartsDefaultProviderEarly(t *testing.T) {
	e, base := newProviderEnv(t)
	prov := &startingProvider{Provider: base}
	e.opts.Plugins = []resource.Plugin{prov}
	want := fmt.Sprintf("%s map[region:eu version:1.2.3]", resource.NewURN(stack, project, "", providerType, "default_1_2_3"))
	var atRun []string
	var configsAtRun int
	prog := listing{pkgs: []source.Package{{Name: "test", Version: "1.2.3"}}, hostedFunc: func(ctx context.Context, c *client) error {
		atRun, configsAtRun = prov.starts(), len(prov.CheckConfigs())
		return registers(nil)(ctx, c)
	}}
	if _, err := e.hosted(engine.Up, prog); err != nil {
		t.Fatal(err)
	}
	if len(atRun) != 1 || atRun[0] != want || configsAtRun != 0 {
		t.Fatalf("started before the run: %q with %d CheckConfig calls; want [%s] and none", atRun, configsAtRun, want)
	}
	for _, r := range e.snap().Resources {
		if r.Type == providerType {
			t.Fatalf("a program that registers no resource of the package recorded its provider %s", r.URN)
		}
	}
	prog.hostedFunc = func(ctx context.Context, c *client) error {
		return registers(nil, custom("a", resource.PropertyMap{"n": 1.0}))(ctx, c)
	}
	if _, err := e.hosted(engine.Up, prog); err != nil {
		t.Fatal(err)
	}
	if got := prov.starts(); len(got) != 2 || len(prov.CheckConfigs()) != 1 || e.providerRecord() == nil {
		t.Fatalf("second up: starts %q, %d CheckConfig calls", got, len(prov.CheckConfigs()))
	}
}
