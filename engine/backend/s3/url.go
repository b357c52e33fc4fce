// Package s3 opens the bucket backend (package bucket) on S3 and the
// stores that speak its protocol (versitygw, gofakes3, ...) from a URL
// written as for `pulumi login`:
//
//	s3://<bucket>[/<prefix>]?region=<r>&endpoint=<host or URL>&use_path_style=true&disable_https=true&profile=<p>
//
// Pulumi's and gocloud's query parameters are accepted as Pulumi accepts
// them (s3ForcePathStyle and disableSSL as the older names, an endpoint
// without a scheme, awssdk ignored). Credentials come from the standard
// AWS chain (environment, shared files and profiles, SSO, web identity,
// container and instance roles); none is ever read from the URL.
package s3

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Location is a parsed s3:// URL.
type Location struct {
	Bucket, Prefix string
	Region         string
	Endpoint       string // with its scheme; "" for AWS
	PathStyle      bool
	Profile        string
	Anonymous      bool
	// ChecksumWhenRequired sends request checksums only where an operation
	// requires them (third-party stores reject the SDK's default).
	ChecksumWhenRequired bool
	// Redacted is the URL as messages show it (no user information).
	Redacted string
}

// knownParams are the query parameters accepted (gocloud's s3blob names,
// Pulumi's older ones, and runner's).
var knownParams = []string{"region", "endpoint", "use_path_style", "disable_https", "profile", "awssdk",
	"s3ForcePathStyle", "disableSSL", "request_checksum_calculation", "response_checksum_validation",
	"anonymous", "dualstack", "fips", "accelerate", "hostname_immutable", "rate_limiter_capacity"}

// ParseURL parses an s3:// URL.
func ParseURL(raw string) (*Location, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "s3" {
		return nil, fmt.Errorf("%q is not an s3:// URL; write s3://<bucket>[/<prefix>]?region=<region>", Redact(raw))
	}
	u.User = nil
	loc := &Location{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/"), Redacted: redactQuery(u)}
	if loc.Bucket == "" {
		return nil, fmt.Errorf("the backend URL %s names no bucket; write s3://<bucket>[/<prefix>]", loc.Redacted)
	}
	q := u.Query()
	var unknown []string
	for k := range q {
		if !contains(knownParams, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("the backend URL %s has unknown parameters %s; the known ones are %s",
			loc.Redacted, strings.Join(unknown, ", "), strings.Join(knownParams, ", "))
	}
	bools := map[string]*bool{}
	var pathStyle, legacyPath, noHTTPS, legacyNoSSL bool
	bools["use_path_style"], bools["s3ForcePathStyle"] = &pathStyle, &legacyPath
	bools["disable_https"], bools["disableSSL"], bools["anonymous"] = &noHTTPS, &legacyNoSSL, &loc.Anonymous
	for k, p := range bools {
		if v := q.Get(k); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("the backend URL %s: %s=%q is not true or false", loc.Redacted, k, v)
			}
			*p = b
		}
	}
	loc.PathStyle = pathStyle || legacyPath
	loc.Region, loc.Profile = q.Get("region"), q.Get("profile")
	if ep := q.Get("endpoint"); ep != "" {
		if endpointUser(ep) {
			return nil, fmt.Errorf("the backend URL %s has user information in its endpoint, which S3 does not use; remove it and give keys through AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or AWS_PROFILE", loc.Redacted)
		}
		if !strings.Contains(ep, "://") {
			scheme := "https://"
			if noHTTPS || legacyNoSSL {
				scheme = "http://"
			}
			ep = scheme + ep
		}
		loc.Endpoint = ep
		loc.ChecksumWhenRequired = true
	}
	switch q.Get("request_checksum_calculation") {
	case "when_required":
		loc.ChecksumWhenRequired = true
	case "when_supported":
		loc.ChecksumWhenRequired = false
	}
	return loc, nil
}

// redactQuery renders u with the values of parameters runner does not
// know replaced by "xxxxx": a key pasted into the URL stays out of
// messages.
func redactQuery(u *url.URL) string {
	q := u.Query()
	changed := false
	for k := range q {
		if !contains(knownParams, k) {
			q.Set(k, "xxxxx")
			changed = true
		}
	}
	if ep := q.Get("endpoint"); endpointUser(ep) {
		q.Set("endpoint", "xxxxx")
		changed = true
	}
	if !changed {
		return u.String()
	}
	c := *u
	c.RawQuery = q.Encode()
	return c.String()
}

// endpointUser reports whether an endpoint parameter carries user
// information (user:password@), which must stay out of messages.
func endpointUser(ep string) bool {
	if !strings.Contains(ep, "://") {
		ep = "https://" + ep
	}
	u, err := url.Parse(ep)
	return (err == nil && u.User != nil) || (err != nil && strings.Contains(ep, "@"))
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// Redact returns raw with any user information (a password or key written
// into the URL) removed, for messages.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.Index(raw, "@"); i >= 0 {
			if j := strings.Index(raw, "://"); j >= 0 && j < i {
				return raw[:j+3] + "REDACTED@" + raw[i+1:]
			}
		}
		return raw
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	return redactQuery(u)
}

// Identity names the bucket prefix the location keeps state in, the same
// however the URL spells it: the endpoint reduced to its scheme and host
// (lower case, without a default port; AWS's own endpoints, or none, as
// "aws"), the bucket and the prefix.
func (loc *Location) Identity() string {
	endpoint := "aws"
	if loc.Endpoint != "" {
		if u, err := url.Parse(loc.Endpoint); err == nil {
			scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
			port := u.Port()
			if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
				port = ""
			}
			endpoint = scheme + "://" + host
			if port != "" {
				endpoint += ":" + port
			}
			if host == "amazonaws.com" || strings.HasSuffix(host, ".amazonaws.com") {
				endpoint = "aws"
			}
		} else {
			endpoint = loc.Endpoint
		}
	}
	return "s3://" + loc.Bucket + "/" + loc.Prefix + " at " + endpoint
}
