package docean

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAccountRegistry(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   string
		want   string // the registry's name, or part of the error
		err    bool
	}{
		{"one", 200, `{"registry":{"name":"acme","region":"nyc3"}}`, "acme", false},
		{"none", 404, `{"id":"not_found","message":"The resource you were accessing could not be found."}`, "", false},
		{"token refused", 401, `{"id":"Unauthorized","message":"Unable to authenticate you"}`, "refused the API token", true},
		{"other", 500, `{"id":"server_error","message":"oops"}`, "answered 500", true},
		{"no name", 200, `{"registry":{}}`, "names no registry", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v2/registry" || r.Header.Get("Authorization") != "Bearer tok" {
					t.Errorf("request %s with %q", r.URL.Path, r.Header.Get("Authorization"))
				}
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			}))
			defer srv.Close()
			got, err := Account{API: srv.URL}.Registry(context.Background(), "tok")
			switch {
			case c.err && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("err = %v, want one saying %q", err, c.want)
			case c.err && strings.Contains(err.Error(), "tok\""):
				t.Errorf("the error shows the token: %v", err)
			case !c.err && err != nil:
				t.Errorf("err = %v", err)
			case !c.err && c.want == "" && got != nil:
				t.Errorf("found %v, want none", got)
			case !c.err && c.want != "" && (got == nil || got.Name != c.want):
				t.Errorf("found %v, want %s", got, c.want)
			}
		})
	}
	if _, err := (Account{API: "ftp://x"}).Registry(context.Background(), "tok"); err == nil || !strings.Contains(err.Error(), APIEnv) {
		t.Errorf("a bad API address: %v", err)
	}
}
