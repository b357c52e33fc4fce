package bucket_test

import (
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/backendtest"
	"github.com/runnerhq/runner/engine/backend/bucket"
)

func TestMemoryConformance(t *testing.T) {
	backendtest.Run(t, func(t *testing.T) backend.Store { return bucket.New(bucket.NewMemory()) })
}
