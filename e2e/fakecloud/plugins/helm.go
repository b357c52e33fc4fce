package plugins

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
)

var (
	// chartName is a chart's name, optionally after a local repository's
	// name (ingress-nginx, bitnami/postgresql), as Helm names charts.
	chartName = regexp.MustCompile(`^([a-z0-9][a-z0-9._-]*/)?[a-zA-Z0-9][a-zA-Z0-9._-]*$`)
	// chartVersion is one version constraint as Helm takes them (1.2.3,
	// v1.2.3-rc.1, ^1.2, >=1.0, 1.x).
	chartVersion = regexp.MustCompile(`^(>=|<=|!=|>|<|=|~|\^)?\s*v?(\d+|x|X|\*)(\.(\d+|x|X|\*)){0,2}(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
)

// check refuses what Helm refuses in a release beyond the schema: a chart
// that is neither a chart name, a path nor a chart URL (oci, http, https);
// a version that is no version constraint; a repositoryOpts.repo that is
// not an http(s) URL, or given with a chart URL. Unknown values pass.
func (c *kubeCloud) check(typ string, news resource.PropertyMap) []plugin.CheckFailure {
	if typ != releaseType {
		return nil
	}
	var failures []plugin.CheckFailure
	fail := func(path, reason string) {
		failures = append(failures, plugin.CheckFailure{Property: resource.PropertyKey(path), Reason: reason})
	}
	chart, chartKnown := plainString(news["chart"])
	if chartKnown && !wellFormedChart(chart) {
		fail("chart", "a chart is a name (ingress-nginx, repo/name), a path (./chart) or a URL (oci://, https://), not "+quote(news["chart"], chart))
	}
	if v, ok := plainString(news["version"]); ok && v != "" && !wellFormedVersion(v) { // "" is the latest
		fail("version", "a chart version is a version or constraint (1.2.3, ^1.2, >=1.0 <2.0), not "+quote(news["version"], v))
	}
	optsSecret := isSecret(news["repositoryOpts"])
	opts, _ := Contents(news["repositoryOpts"])
	if !opts.IsObject() {
		return failures
	}
	rawRepo := opts.ObjectValue()["repo"]
	repo, ok := plainString(rawRepo)
	if !ok {
		return failures
	}
	if optsSecret {
		rawRepo = resource.MakeSecret(rawRepo)
	}
	if u, err := url.Parse(repo); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		fail("repositoryOpts.repo", "a chart repository is an http(s) URL (an OCI registry goes in chart as oci://…), not "+quote(rawRepo, repo))
	} else if chartKnown && strings.Contains(chart, "://") {
		fail("chart", "with repositoryOpts.repo the chart is the chart's name in that repository, not the URL "+quote(news["chart"], chart))
	}
	return failures
}

// plainString returns v's string when it is a known string.
func plainString(v resource.PropertyValue) (string, bool) {
	v, known := Contents(v)
	if !known || !v.IsString() {
		return "", false
	}
	return v.StringValue(), true
}

// wellFormedChart reports whether chart names a chart as Helm takes one.
func wellFormedChart(chart string) bool {
	switch {
	case strings.HasPrefix(chart, "./"), strings.HasPrefix(chart, "../"), strings.HasPrefix(chart, "/"):
		return !strings.ContainsAny(chart, "\n\r\t")
	case strings.Contains(chart, "://"):
		u, err := url.Parse(chart)
		return err == nil && (u.Scheme == "oci" || u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && len(u.Path) > 1
	}
	return chartName.MatchString(chart)
}

// wellFormedVersion reports whether v is a version constraint: one or
// more, separated by commas, spaces or ||.
func wellFormedVersion(v string) bool {
	var parts []string
	for _, or := range strings.Split(v, "||") {
		op := "" // an operator written apart from its version (>= 1.0)
		for _, and := range strings.FieldsFunc(or, func(r rune) bool { return r == ',' || r == ' ' }) {
			if strings.Trim(and, "<>=!~^") == "" {
				op += and
				continue
			}
			parts = append(parts, op+and)
			op = ""
		}
		if op != "" {
			return false
		}
	}
	if len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		if !chartVersion.MatchString(p) {
			return false
		}
	}
	return true
}

// quote returns s, the contents of v, quoted, or [secret] when v is secret.
func quote(v resource.PropertyValue, s string) string {
	if isSecret(v) || v.ContainsSecrets() {
		return "[secret]"
	}
	return `"` + s + `"`
}
