package fakecloud

import (
	"encoding/json"
	"net/http"
)

// DOAPI is the part of DigitalOcean's API that runner asks itself (not
// through the digitalocean plugin), over the fake cloud in dir: GET
// /v2/registry, the account's container registry (404 when it has none),
// for requests that carry token as their bearer (401 otherwise). Tests
// serve it with httptest and give its address as DIGITALOCEAN_API_URL.
func DOAPI(dir, token string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/registry", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			doAnswer(w, http.StatusUnauthorized, map[string]any{"id": "Unauthorized", "message": "Unable to authenticate you"})
			return
		}
		all, err := List(dir)
		if err != nil {
			doAnswer(w, http.StatusInternalServerError, map[string]any{"id": "server_error", "message": err.Error()})
			return
		}
		var regs []Resource
		for _, res := range all {
			if res.Type == "digitalocean:index/containerRegistry:ContainerRegistry" {
				regs = append(regs, res)
			}
		}
		switch len(regs) {
		case 0:
			doAnswer(w, http.StatusNotFound, map[string]any{"id": "not_found", "message": "The resource you were accessing could not be found."})
		case 1:
			doAnswer(w, http.StatusOK, map[string]any{"registry": map[string]any{
				"name": regs[0].ID, "region": regs[0].Outputs["region"], "created_at": regs[0].Outputs["createdAt"],
				"storage_usage_bytes": 0,
			}})
		default:
			// /v2/registry is DigitalOcean's API of one registry an account.
			doAnswer(w, http.StatusBadRequest, map[string]any{"id": "bad_request", "message": "this account has several registries; use /v2/registries"})
		}
	})
	return mux
}

// doAnswer writes a JSON answer of DigitalOcean's API.
func doAnswer(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
