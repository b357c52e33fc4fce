package service

import (
	"net/http"
	"net/http/httptest"
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
