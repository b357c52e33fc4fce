package cluster

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/runnerhq/runner/engine"
)

// Type tokens of Pulumi's kubernetes plugin that the layers declare
// besides those of sirius_k8s.go (Secret, Service, ...).
const (
	releaseType   = "kubernetes:helm.sh/v3:Release"
	namespaceType = "kubernetes:core/v1:Namespace"
)

// chart is where a Helm chart comes from: the config keys that choose it
// (MARA's key names, in config namespace ns) and their defaults.
type chart struct {
	ns string
	// Keys inside ns; "" means chart_name, chart_version, helm_repo_url.
	nameKey, versionKey, repoKey string
	// Defaults.
	name, version, repo string
	// timeout is the default of <ns>:helm_timeout, in seconds.
	timeout int
}

func (c chart) key(k, def string) string {
	if k == "" {
		k = def
	}
	return c.ns + ":" + k
}

// source is a chart resolved against the stack config.
type source struct {
	name, version, repo string
	timeout             int
}

// resolve reads c's keys from the stack config, falling back to the
// defaults, and checks them.
func (c chart) resolve(ctx *engine.Context) (source, error) {
	var s source
	var err error
	if s.name, err = setting(ctx, c.key(c.nameKey, "chart_name"), c.name); err != nil {
		return s, err
	}
	if s.version, err = setting(ctx, c.key(c.versionKey, "chart_version"), c.version); err != nil {
		return s, err
	}
	repoKey := c.key(c.repoKey, "helm_repo_url")
	repo, err := setting(ctx, repoKey, c.repo)
	if err != nil {
		return s, err
	}
	if s.repo, err = repoURL(repoKey, repo); err != nil {
		return s, err
	}
	switch {
	case s.repo == bitnamiOCI && repo != bitnamiOCI:
		ctx.Log("%s is %q, Bitnami's HTTPS repository, which no longer lists older chart versions; using %s", repoKey, repo, s.repo)
	case s.repo != repo:
		ctx.Log("%s is %q, which repeats its scheme (as MARA's example config did); using %s", repoKey, repo, s.repo)
	}
	if s.timeout, err = seconds(ctx, c.ns+":helm_timeout", c.timeout); err != nil {
		return s, err
	}
	return s, nil
}

// release is one Helm release of a chart.
type release struct {
	// name is the release's name and the resource's.
	name string
	// namespace is a string or an Output of one.
	namespace any
	// createNamespace lets Helm create the namespace.
	createNamespace bool
	// values are the chart's values (may hold Outputs).
	values map[string]any
}

// helmRelease declares r of chart c through the layer's provider p.
func helmRelease(ctx *engine.Context, p *engine.Resource, c chart, r release, opts ...engine.ResourceOption) (*engine.Resource, error) {
	src, err := c.resolve(ctx)
	if err != nil {
		return nil, err
	}
	return declareRelease(ctx, p, src, r, opts...), nil
}

// declareRelease declares r of the resolved chart src through p.
func declareRelease(ctx *engine.Context, p *engine.Resource, src source, r release, opts ...engine.ResourceOption) *engine.Resource {
	values := r.values
	if values == nil {
		values = map[string]any{}
	}
	inputs := engine.Inputs{
		"name":          r.name,
		"chart":         src.name,
		"version":       src.version,
		"namespace":     r.namespace,
		"values":        values,
		"timeout":       src.timeout,
		"cleanupOnFail": true,
	}
	if r.createNamespace {
		inputs["createNamespace"] = true
	}
	if strings.HasPrefix(src.repo, "oci://") {
		// An OCI registry names the chart by URL; there is no index.
		inputs["chart"] = strings.TrimSuffix(src.repo, "/") + "/" + src.name
	} else {
		inputs["repositoryOpts"] = map[string]any{"repo": src.repo}
	}
	return ctx.Resource(releaseType, r.name, inputs, append([]engine.ResourceOption{engine.Provider(p)}, opts...)...)
}

// setting returns the plain value of key, or def when it is unset or empty.
func setting(ctx *engine.Context, key, def string) (string, error) {
	v, ok, err := ctx.PlainString(key)
	if err != nil {
		return "", err
	}
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	return strings.TrimSpace(v), nil
}

// seconds reads key as a whole number of seconds (def when unset).
func seconds(ctx *engine.Context, key string, def int) (int, error) {
	return count(ctx, key, def, 1)
}

// count reads key as a whole number no smaller than min (def when unset).
func count(ctx *engine.Context, key string, def, min int) (int, error) {
	v, err := setting(ctx, key, "")
	if err != nil || v == "" {
		return def, err
	}
	return wholeNumber(key, v, min)
}

// wholeNumber reads v, the value of key, as a whole number no smaller
// than min.
func wholeNumber(key, v string, min int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < min {
		return 0, fmt.Errorf("the config value %s must be a whole number of at least %d, not %q", key, min, v)
	}
	return n, nil
}

// repoURL checks a chart repository URL (http, https or oci). A scheme
// given twice ("https://https://host", as in MARA's example config) is
// given once.
func repoURL(key, v string) (string, error) {
	for _, scheme := range []string{"https://", "http://"} {
		for strings.HasPrefix(v, scheme+scheme) {
			v = strings.TrimPrefix(v, scheme)
		}
	}
	u, err := url.Parse(v)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "oci") {
		return "", fmt.Errorf("the config value %s must be the URL of a Helm chart repository (https://, http:// or oci://), not %q", key, v)
	}
	if u.Host == "charts.bitnami.com" && strings.TrimSuffix(u.Path, "/") == "/bitnami" {
		return bitnamiOCI, nil
	}
	return v, nil
}

// bitnamiOCI is where Bitnami's charts are: its HTTPS repository (MARA's
// logstore:helm_repo_url) lists only the last six months of releases, so
// MARA's pinned versions are not found there.
const bitnamiOCI = "oci://registry-1.docker.io/bitnamicharts"

// namespace declares a Namespace named name through p.
func namespace(ctx *engine.Context, p *engine.Resource, name string, labels map[string]any) *engine.Resource {
	meta := map[string]any{"name": name}
	if labels != nil {
		meta["labels"] = labels
	}
	return ctx.Resource(namespaceType, name, engine.Inputs{"metadata": meta}, engine.Provider(p))
}

// nameOf is the metadata.name of a Kubernetes resource r, known once r
// exists, so that what uses it waits for r.
func nameOf(r *engine.Resource) engine.Output {
	return r.Output("metadata").Apply(func(v any) (any, error) {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		if name == "" {
			return nil, fmt.Errorf("%s has no metadata.name in its outputs", r.URN())
		}
		return name, nil
	})
}

// svcHost is the cluster DNS name of service in namespace ns.
func svcHost(service, ns string) string {
	return service + "." + ns + ".svc.cluster.local"
}
