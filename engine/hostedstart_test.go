package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
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

// listing is a hosted program that names the packages it needs; asked
// (when set) is closed when it is asked, released counts its Releases.
type listing struct {
	hostedFunc
	pkgs     []source.Package
	asked    chan struct{}
	released *int
}

func (l listing) RequiredPackages(context.Context, source.RunRequest) ([]source.Package, error) {
	if l.asked != nil {
		close(l.asked)
	}
	return l.pkgs, nil
}

func (l listing) Release(source.RunRequest) {
	if l.released != nil {
		*l.released++
	}
}

// slowLoad is a backend whose Load waits until the program's host was
// asked for its packages.
type slowLoad struct {
	backend.Backend
	asked <-chan struct{}
}

func (b slowLoad) Load(ctx context.Context, project, stack string, c resource.Crypter) (*state.Snapshot, error) {
	select {
	case <-b.asked:
	case <-time.After(10 * time.Second):
		return nil, fmt.Errorf("the program's host was not asked for its packages while the stack was read")
	}
	return b.Backend.Load(ctx, project, stack, c)
}

// TestHostedHostStartsWhileTheStackIsRead checks that the program's host
// is started and asked for its packages while the operation locks and
// reads the stack, not after; and that an operation that ends before its
// program runs (the stack is locked) releases it.
func TestHostedHostStartsWhileTheStackIsRead(t *testing.T) {
	e := newHostedEnv(t)
	released := 0
	prog := listing{hostedFunc: registers(nil), asked: make(chan struct{}), released: &released}
	opts := e.opts
	opts.Hosted, opts.Backend = prog, slowLoad{Backend: e.backend, asked: prog.asked}
	if _, err := engine.Up(context.Background(), opts, nil); err != nil || released != 0 {
		t.Fatalf("up: %v, %d releases", err, released)
	}
	lock, err := e.backend.Lock(context.Background(), project, stack, backend.CurrentLockInfo("another up"))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	prog.asked = make(chan struct{})
	_, err = e.hosted(engine.Up, prog)
	if err == nil || !strings.Contains(err.Error(), "lock") || released != 1 {
		t.Fatalf("up of a locked stack: %v, %d releases, want a lock error and 1", err, released)
	}
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
