package plugincache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// Spec is a plugin to install.
type Spec struct {
	// Name is the plugin's package name (aws for pulumi-resource-aws).
	Name string
	// Version is the semantic version to install (a leading v allowed).
	Version string
	// Server is where to download it from instead of Pulumi's defaults
	// (a provider's pluginDownloadURL): an http(s) URL, with ${NAME},
	// ${VERSION}, ${OS} and ${ARCH} placeholders or else the folder the
	// asset is in, or github://<api host>/<org>[/<repo>] for the assets of
	// a GitHub release.
	Server string
	// Checksums are the SHA-256 sums (hex) of the asset by platform,
	// "<os>-<arch>" such as linux-amd64. The download is checked only when
	// the running platform has one.
	Checksums map[string]string
}

// Asset returns the file name of the plugin's release asset for a platform,
// as Pulumi publishes it.
func Asset(name, version, goos, goarch string) string {
	return fmt.Sprintf("pulumi-resource-%s-v%s-%s-%s.tar.gz", name, strings.TrimPrefix(version, "v"), goos, goarch)
}

// source is one place a plugin's asset may be downloaded from: a URL, or
// (api set) a GitHub release whose asset is found through GitHub's API.
type source struct {
	url string
	api *githubRelease
}

// githubRelease is a release of a GitHub repository, read through the API
// at base (https://api.github.com or a GitHub Enterprise host).
type githubRelease struct {
	base, org, repo, tag string
}

func (s source) String() string {
	if s.api != nil {
		return fmt.Sprintf("%s/repos/%s/%s/releases/tags/%s", s.api.base, s.api.org, s.api.repo, s.api.tag)
	}
	return s.url
}

// sources returns where to download the plugin's asset from, in Pulumi's
// order: the templates given (the override, else the spec's Server), or
// by default the GitHub release of pulumi/pulumi-<name> (its download URL,
// then through the API) and then get.pulumi.com.
func sources(spec Spec, templates []string, goos, goarch string) ([]source, error) {
	v := strings.TrimPrefix(spec.Version, "v")
	asset := Asset(spec.Name, v, goos, goarch)
	if len(templates) == 0 && spec.Server != "" {
		templates = []string{spec.Server}
	}
	if len(templates) == 0 {
		return []source{
			{url: fmt.Sprintf("https://github.com/pulumi/pulumi-%s/releases/download/v%s/%s", spec.Name, v, asset)},
			{api: &githubRelease{base: "https://api.github.com", org: "pulumi", repo: "pulumi-" + spec.Name, tag: "v" + v}},
			{url: "https://get.pulumi.com/releases/plugins/" + asset},
		}, nil
	}
	var out []source
	for _, t := range templates {
		s, err := parseSource(t, spec.Name, v, goos, goarch)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// parseSource turns a download URL template (see Spec.Server) into a source.
func parseSource(t, name, v, goos, goarch string) (source, error) {
	u, err := url.Parse(t)
	if err != nil {
		return source{}, fmt.Errorf("the plugin server %q is not a URL: %w", t, err)
	}
	switch u.Scheme {
	case "http", "https":
		r := strings.NewReplacer("${NAME}", name, "${VERSION}", v, "${OS}", goos, "${ARCH}", goarch)
		if out := r.Replace(t); out != t {
			return source{url: out}, nil
		}
		return source{url: strings.TrimRight(t, "/") + "/" + Asset(name, v, goos, goarch)}, nil
	case "github":
		parts := strings.Split(strings.Trim(u.Path, "/"), "/")
		if u.Host == "" || parts[0] == "" || len(parts) > 2 {
			return source{}, fmt.Errorf("the plugin server %q is not github://<host>/<org>[/<repo>]", t)
		}
		repo := "pulumi-" + name
		if len(parts) == 2 {
			repo = parts[1]
		}
		return source{api: &githubRelease{base: "https://" + u.Host, org: parts[0], repo: repo, tag: "v" + v}}, nil
	}
	return source{}, fmt.Errorf("the plugin server %q is not supported: use an http(s):// URL or github://<host>/<org>[/<repo>]", t)
}

// fetcher downloads through one HTTP client with GitHub's token.
type fetcher struct {
	client   *http.Client
	insecure bool   // plain http to other machines allowed
	limit    int64  // bytes of a download
	token    string // GITHUB_TOKEN, sent to GitHub hosts only
	// hosts are those the token goes to besides github.com and
	// api.github.com: the hosts of github:// sources.
	hosts map[string]bool
}

// get fetches u (accept: the Accept header, "" for none) and returns the
// body of a 200 answer. The token goes to GitHub hosts and is dropped,
// as Pulumi does, when it is refused (401, 403).
func (f fetcher) get(ctx context.Context, u, accept string) (io.ReadCloser, error) {
	withToken := f.token != "" && f.githubHost(u)
	parsed, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	if err := checkScheme(parsed, f.insecure, false); err != nil {
		return nil, err
	}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		if withToken {
			req.Header.Set("Authorization", "token "+f.token)
		}
		resp, err := f.client.Do(req)
		var insecure *InsecureHTTPError
		if errors.As(err, &insecure) {
			return nil, insecure // not the url.Error around it: the message names the hop
		}
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusOK {
			if f.limit > 0 && resp.ContentLength > f.limit {
				resp.Body.Close()
				return nil, &LimitError{What: fmt.Sprintf("the download %s (%d bytes)", u, resp.ContentLength), Limit: boundedfile.Size(f.limit)}
			}
			return resp.Body, nil
		}
		resp.Body.Close()
		if withToken && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
			withToken = false // a bad or narrow token must not hide a public asset
			continue
		}
		return nil, fmt.Errorf("%s", resp.Status)
	}
}

// githubHost reports whether u is on github.com, api.github.com or the
// host of a github:// source, over https.
func (f fetcher) githubHost(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "https" {
		return false
	}
	h := p.Host
	return h == "github.com" || h == "api.github.com" || f.hosts[h]
}

// open returns the body of the asset from s.
func (f fetcher) open(ctx context.Context, s source, asset string) (io.ReadCloser, error) {
	if s.api == nil {
		return f.get(ctx, s.url, "")
	}
	body, err := f.get(ctx, s.String(), "application/vnd.github+json")
	if err != nil {
		return nil, err
	}
	defer body.Close()
	var rel struct {
		Assets []struct {
			Name string `json:"name"`
			URL  string `json:"url"`
		} `json:"assets"`
	}
	if err := json.NewDecoder(io.LimitReader(body, 16<<20)).Decode(&rel); err != nil {
		return nil, fmt.Errorf("reading the release: %w", err)
	}
	for _, a := range rel.Assets {
		if a.Name == asset {
			return f.get(ctx, a.URL, "application/octet-stream")
		}
	}
	return nil, fmt.Errorf("the release has no asset %s", asset)
}

// Latest returns the version of the newest release of
// github.com/pulumi/pulumi-<name> (apiBase "" is https://api.github.com),
// for an install that names no version.
func Latest(ctx context.Context, name string, opts InstallOptions) (string, error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	base := opts.APIBase
	if base == "" {
		base = "https://api.github.com"
	}
	u := fmt.Sprintf("%s/repos/pulumi/pulumi-%s/releases/latest", strings.TrimRight(base, "/"), name)
	body, err := opts.fetcher().get(ctx, u, "application/vnd.github+json")
	if err != nil {
		return "", fmt.Errorf("finding the latest release of plugin %s at %s: %w; name the version to install", name, u, err)
	}
	defer body.Close()
	var rel struct {
		Tag string `json:"tag_name"`
	}
	if err := json.NewDecoder(io.LimitReader(body, 16<<20)).Decode(&rel); err != nil {
		return "", fmt.Errorf("reading the latest release of plugin %s from %s: %w", name, u, err)
	}
	v, err := parseVersion(rel.Tag)
	if err != nil {
		return "", fmt.Errorf("the latest release of plugin %s: %w", name, err)
	}
	return v.String(), nil
}
