package plugintest_test

import (
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/backendtest"
	"github.com/runnerhq/runner/engine/plugintest"
)

func TestBackendConformance(t *testing.T) {
	backendtest.Run(t, func(*testing.T) backend.Store { return plugintest.NewBackend() })
}
