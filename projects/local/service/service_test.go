package service

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

func TestHandler(t *testing.T) {
	c := Config{Stack: "dev", AdminUser: "admin", AdminPasswordSalt: "s4lt", AdminPasswordSHA256: PasswordDigest("s4lt", "correct horse")}
	tests := []struct {
		name       string
		path       string
		user, pass string
		auth       bool
		want       int
	}{
		{"root", "/", "", "", false, 200},
		{"health", "/healthz", "", "", false, 200},
		{"unknown", "/nope", "", "", false, 404},
		{"admin without auth", "/admin", "", "", false, 401},
		{"admin wrong password", "/admin", "admin", "wrong", true, 401},
		{"admin wrong user", "/admin", "root", "correct horse", true, 401},
		{"admin right", "/admin", "admin", "correct horse", true, 200},
	}
	h := Handler(c)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, tt.path, nil)
			if tt.auth {
				req.SetBasicAuth(tt.user, tt.pass)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d", rec.Code, tt.want)
			}
			if tt.want == 401 && rec.Header().Get("WWW-Authenticate") == "" {
				t.Fatal("401 without a WWW-Authenticate header")
			}
		})
	}
}

// TestPasswordFileIsReadAtEachLogin: the digest file is read at each
// login, so a new password works without a restart; no file, no login.
func TestPasswordFileIsReadAtEachLogin(t *testing.T) {
	file := filepath.Join(t.TempDir(), "admin.sha256")
	h := Handler(Config{Stack: "dev", AdminUser: "admin", AdminPasswordSalt: "s4lt", AdminPasswordFile: file})
	login := func(pass string) int {
		req := httptest.NewRequest(http.MethodGet, "/admin", nil)
		req.SetBasicAuth("admin", pass)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	if got := login("first password"); got != 401 {
		t.Fatalf("login without a digest file: %d", got)
	}
	for _, pass := range []string{"first password", "second password"} {
		if err := os.WriteFile(file, []byte(PasswordDigest("s4lt", pass)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := login(pass); got != 200 {
			t.Fatalf("login with %q: %d", pass, got)
		}
	}
	if got := login("first password"); got != 401 {
		t.Fatalf("the old password still works: %d", got)
	}
}
