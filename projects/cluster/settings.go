package cluster

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// charts are every chart the layers deploy.
var charts = []chart{kicChart, logstoreChart, logagentChart, certmgrChart,
	prometheusChart, statsdChart, otelOperatorChart, otelCollectorChart}

// logstoreRoles are the Elasticsearch node roles whose counts
// logstore:<role>_replicas sets.
var logstoreRoles = []string{"master", "data", "ingest", "coordinating"}

// CheckSettings checks the settings of the Kubernetes projects in the
// stack config (get returns a key's value) before anything runs, with the
// messages their programs would give when they run: chart repositories and
// Helm timeouts, the log store's node counts and persistence, and the
// ingress controller's image. Unset keys take their defaults and pass.
func CheckSettings(get func(key string) (string, bool)) error {
	set := func(key string) (string, bool) {
		v, ok := get(key)
		return strings.TrimSpace(v), ok && strings.TrimSpace(v) != ""
	}
	var errs []error
	for _, c := range charts {
		if v, ok := set(c.key(c.repoKey, "helm_repo_url")); ok {
			if _, err := repoURL(c.key(c.repoKey, "helm_repo_url"), v); err != nil {
				errs = append(errs, err)
			}
		}
		if v, ok := set(c.ns + ":helm_timeout"); ok {
			if _, err := wholeNumber(c.ns+":helm_timeout", v, 1); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, role := range logstoreRoles {
		if v, ok := set("logstore:" + role + "_replicas"); ok {
			if _, err := wholeNumber("logstore:"+role+"_replicas", v, 1); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if v, ok := set("logstore:persistence"); ok {
		if _, err := strconv.ParseBool(v); err != nil {
			errs = append(errs, fmt.Errorf("the config value logstore:persistence is %q: it must be true or false", v))
		}
	}
	if v, ok := set("kic:image_name"); ok {
		if _, err := splitImage(v); err != nil {
			errs = append(errs, fmt.Errorf("the config value kic:image_name: %w", err))
		}
	}
	return dedupe(errs)
}

// dedupe joins errs, each message once (charts of one namespace share its
// helm_timeout key).
func dedupe(errs []error) error {
	seen := map[string]bool{}
	var out []error
	for _, err := range errs {
		if !seen[err.Error()] {
			seen[err.Error()] = true
			out = append(out, err)
		}
	}
	return errors.Join(out...)
}
