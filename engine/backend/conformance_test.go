package backend_test

import (
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/backendtest"
)

func TestFolderConformance(t *testing.T) {
	backendtest.Run(t, func(t *testing.T) backend.Store {
		f, err := backend.Open("file://" + t.TempDir() + "/state")
		if err != nil {
			t.Fatal(err)
		}
		return f
	})
}
