package s3_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/bucket"
	"github.com/runnerhq/runner/engine/backend/s3"
	"github.com/runnerhq/runner/internal/testserver"
)

// TestProbeThroughAStoreIgnoringConditions puts a proxy that drops the
// conditional headers (as s3rver and some gateways do) in front of
// gofakes3: opening works, the first lock is refused.
func TestProbeThroughAStoreIgnoringConditions(t *testing.T) {
	srv := testserver.GoFakeS3(t)
	srv.SetEnv(t)
	target, _ := url.Parse(srv.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(target)
	strip := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("If-None-Match")
		r.Header.Del("If-Match")
		proxy.ServeHTTP(w, r)
	}))
	defer strip.Close()
	u := strings.Replace(srv.URL, srv.Endpoint, strip.URL, 1)
	b, err := s3.OpenURL(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Lock(context.Background(), "network", "dev", backend.CurrentLockInfo("runner up"))
	var nc *bucket.NoConditionalWritesError
	if !errors.As(err, &nc) || !strings.Contains(err.Error(), strip.URL[len("http://"):]) {
		t.Fatalf("Lock through a store ignoring conditions = %v, want a *NoConditionalWritesError naming the URL", err)
	}
}
