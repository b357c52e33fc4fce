//go:build !runner_testprov

package builtin

import "github.com/runnerhq/runner/providers"

// testProviders returns the providers compiled in only for tests: none in
// a product build.
func testProviders() []*providers.Provider { return nil }
