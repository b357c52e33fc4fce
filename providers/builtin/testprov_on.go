//go:build runner_testprov

package builtin

import (
	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/providers/testprov"
)

// testProviders returns the providers compiled in for tests (build tag
// runner_testprov): testprov, which drives the testprov plugin.
func testProviders() []*providers.Provider { return []*providers.Provider{testprov.New()} }
