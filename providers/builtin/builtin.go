// Package builtin builds the registry of the providers compiled into
// runner: local (the default), aws, do, kubeconfig and linode.
package builtin

import (
	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/providers/aws"
	"github.com/runnerhq/runner/providers/do"
	"github.com/runnerhq/runner/providers/kubeconfig"
	"github.com/runnerhq/runner/providers/linode"
	"github.com/runnerhq/runner/providers/local"
)

// Default is the name of the provider chosen when none is named.
const Default = local.Name

// Providers returns new copies of the built-in providers.
func Providers() []*providers.Provider {
	return append([]*providers.Provider{local.New(), aws.New(), do.New(), kubeconfig.New(), linode.New()}, testProviders()...)
}

// Registry returns a new registry of the built-in providers.
func Registry() *providers.Registry {
	r, err := providers.NewRegistry(Default, Providers()...)
	if err != nil {
		panic("builtin: " + err.Error()) // the list above is fixed: a programming error
	}
	return r
}
