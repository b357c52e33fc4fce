package cluster

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runnerhq/runner/internal/testenv"
)

// fakeHarbor is Harbor's API as the harbor-configuration Job sees it:
// /api/v2.0/health reports unhealthy until healthyAfter requests, then
// healthy; the PUT of the project library's metadata is recorded.
type fakeHarbor struct {
	mu           sync.Mutex
	healthyAfter int
	health       int
	put          []string // method, Authorization, body
	putStatus    int
}

func (h *fakeHarbor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch r.URL.Path {
	case "/api/v2.0/health":
		h.health++
		status := "healthy"
		if h.health <= h.healthyAfter {
			status = "unhealthy"
		}
		_, _ = io.WriteString(w, `{"status":"`+status+`","components":[{"name":"core","status":"healthy"},{"name":"database","status":"`+status+`"}]}`)
	case "/api/v2.0/projects/library/metadatas/public":
		body, _ := io.ReadAll(r.Body)
		h.put = []string{r.Method, r.Header.Get("Authorization"), string(body), r.Header.Get("Content-Type")}
		if h.putStatus != 0 {
			w.WriteHeader(h.putStatus)
		}
	default:
		http.NotFound(w, r)
	}
}

// TestHarborConfigScript runs the harbor-configuration Job's script with
// sh and curl against a fake Harbor: it waits for every component to be
// healthy, then makes the project library private as admin (a password
// with quotes, backslashes and dollars reaches Harbor as it is), and it
// fails when Harbor never becomes healthy or refuses the change.
func TestHarborConfigScript(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		testenv.Unavailable(t, "curl is not installed: the harbor-configuration script runs it")
	}
	const pw = `p"w\d $HOME 'x'`
	for _, c := range []struct {
		name         string
		healthyAfter int
		putStatus    int
		ok           bool
	}{
		{"healthy at once", 0, 0, true},
		{"healthy after three tries", 3, 0, true},
		{"never healthy", 1000, 0, false},
		{"change refused", 0, http.StatusUnauthorized, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &fakeHarbor{healthyAfter: c.healthyAfter, putStatus: c.putStatus}
			srv := httptest.NewServer(h)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "sh", "-c", harborConfigScript)
			cmd.Env = []string{"PATH=/usr/bin:/bin", "HARBOR_API=" + srv.URL + "/api/v2.0", "RETRY_SECONDS=0", "HARBOR_PASSWORD=" + pw}
			out, err := cmd.CombinedOutput()
			if (err == nil) != c.ok {
				t.Fatalf("the script's error is %v, want ok=%v:\n%s", err, c.ok, out)
			}
			if strings.Contains(string(out), pw) {
				t.Errorf("the script printed the password:\n%s", out)
			}
			if !c.ok {
				if c.healthyAfter > 0 && h.put != nil {
					t.Errorf("the script changed Harbor before it was healthy")
				}
				return
			}
			if h.health != c.healthyAfter+1 {
				t.Errorf("the script asked for Harbor's health %d times, want %d", h.health, c.healthyAfter+1)
			}
			want := []string{"PUT", "Basic " + base64.StdEncoding.EncodeToString([]byte("admin:"+pw)), `{"public":"false"}`, "application/json"}
			if strings.Join(h.put, "\n") != strings.Join(want, "\n") {
				t.Errorf("the script's change was %q, want %q", h.put, want)
			}
		})
	}
}
