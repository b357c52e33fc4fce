package s3_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/backendtest"
	"github.com/runnerhq/runner/engine/backend/s3"
	"github.com/runnerhq/runner/internal/testserver"
)

func TestGoFakeS3Conformance(t *testing.T) {
	backendtest.Run(t, func(t *testing.T) backend.Store {
		srv := testserver.GoFakeS3(t)
		srv.SetEnv(t)
		b, err := s3.OpenURL(context.Background(), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		return b
	})
}

func TestVersityConformance(t *testing.T) {
	srv := testserver.Versity(t)
	n := 0
	backendtest.Run(t, func(t *testing.T) backend.Store {
		srv.SetEnv(t)
		n++
		b, err := s3.OpenURL(context.Background(), srv.URLWithPrefix(fmt.Sprintf("case%d", n)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	})
}
