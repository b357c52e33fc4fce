// Package testprov is a provider for tests and benchmarks of Pulumi's
// provider plugins: its projects declare what a JSON spec file in the
// workspace says (projects/specprog), served by the `testprov` plugin
// (engine/pluginhost/testprovider). It is compiled into runner only with
// the build tag runner_testprov (see providers/builtin).
package testprov

import (
	"path/filepath"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/projects/specprog"
	"github.com/runnerhq/runner/providers"
)

// Name is the provider's name.
const Name = "testprov"

// SpecFile returns the spec file of project in workspace.
func SpecFile(workspace, project string) string {
	return filepath.Join(workspace, "testprov", project+".json")
}

// New returns the provider: projects one, two (depends on one) and three
// (independent), and a chain c1 <- c2 <- ... <- c6 for the start-up
// sharing benchmark.
func New() *providers.Provider {
	p := &providers.Provider{
		Name:        Name,
		Description: "test provider: projects declared by JSON spec files, served by the testprov plugin",
		Plugins: []providers.PluginSpec{{Name: "testprov", Version: "1.2.3",
			Help: "testprov needs a store directory it can create: runner config set testprov:store DIR"}},
	}
	add := func(name string, deps ...string) {
		p.Projects = append(p.Projects, providers.Project{
			Name: name, Category: providers.Infrastructure, DependsOn: deps,
			Description: "resources declared by testprov/" + name + ".json",
			Program: func(rt providers.Runtime) engine.Program {
				return specprog.Program(SpecFile(rt.Workspace, name))
			},
		})
	}
	add("one")
	add("two", "one")
	add("three")
	add("c1")
	for i, prev := 2, "c1"; i <= 6; i++ {
		name := "c" + string(rune('0'+i))
		add(name, prev)
		prev = name
	}
	return p
}
