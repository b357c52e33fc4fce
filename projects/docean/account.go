package docean

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The DigitalOcean API: its address, and the variable that sets another
// (DIGITALOCEAN_API_URL, which the digitalocean plugin and doctl read
// too).
const (
	DefaultAPI = "https://api.digitalocean.com"
	APIEnv     = "DIGITALOCEAN_API_URL"
)

// Account is how the container-registry project reaches the DigitalOcean
// account: the API's address and the token from the environment ("" when
// it comes from the secret digitalocean:token).
type Account struct {
	API      string
	EnvToken string
}

// FoundRegistry is a container registry the account already has.
type FoundRegistry struct {
	Name   string `json:"name"`
	Region string `json:"region"`
}

// Endpoint is the registry's endpoint, as the digitalocean plugin gives
// it (registry.digitalocean.com/<name>).
func (r FoundRegistry) Endpoint() string { return RegistryServer + "/" + r.Name }

// RegistryServer is the server of every DigitalOcean container registry.
const RegistryServer = "registry.digitalocean.com"

// apiTimeout bounds one request to DigitalOcean's API.
const apiTimeout = 30 * time.Second

// Registry asks DigitalOcean's API for the account's container registry
// (GET /v2/registry, what `doctl registry get` asks, as MARA's
// container-registry project did before it made one): nil when the
// account has none. An account has one registry, so a second cannot be
// made. The token goes only into the request's Authorization header.
func (a Account) Registry(ctx context.Context, token string) (*FoundRegistry, error) {
	base := a.API
	if base == "" {
		base = DefaultAPI
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%s is %q: it must be the http(s) address of DigitalOcean's API, such as %s", APIEnv, base, DefaultAPI)
	}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/v2/registry", nil)
	if err != nil {
		return nil, fmt.Errorf("asking DigitalOcean for the account's container registry: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL is named below; the error repeats it
		}
		return nil, fmt.Errorf("asking DigitalOcean (%s) for the account's container registry: %w; check the network, or %s", base, err, APIEnv)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("reading DigitalOcean's answer about the account's container registry: %w", err)
	}
	return registryAnswer(resp.StatusCode, body)
}

// registryAnswer reads the answer of GET /v2/registry.
func registryAnswer(status int, body []byte) (*FoundRegistry, error) {
	var ans struct {
		Registry *FoundRegistry `json:"registry"`
		Message  string         `json:"message"`
	}
	_ = json.Unmarshal(body, &ans)
	switch {
	case status == http.StatusNotFound:
		return nil, nil
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return nil, fmt.Errorf("DigitalOcean refused the API token when asked for the account's container registry (%d %s): the token needs read scope on the registry; set a valid one in DIGITALOCEAN_TOKEN or with `runner config set --secret digitalocean:token`",
			status, ans.Message)
	case status != http.StatusOK:
		return nil, fmt.Errorf("DigitalOcean answered %d when asked for the account's container registry: %s", status, ans.Message)
	case ans.Registry == nil || ans.Registry.Name == "":
		return nil, fmt.Errorf("DigitalOcean's answer about the account's container registry names no registry")
	}
	return ans.Registry, nil
}
