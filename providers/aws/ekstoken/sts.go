package ekstoken

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// httpClient makes the STS, SSO and instance metadata calls.
var httpClient = &http.Client{Timeout: 30 * time.Second}

// endpoint returns the base URL of an AWS service in region: the
// environment's AWS_ENDPOINT_URL_<ID> (ID is "STS", "SSO"), else
// AWS_ENDPOINT_URL, as the AWS SDKs read them (unless
// AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is true), else
// https://<host>.<region>.<AWS's domain there>.
func (l *loader) endpoint(id, host string) (*url.URL, error) {
	raw := "https://" + host + "." + l.region + "." + DNSSuffix(l.region)
	if !strings.EqualFold(l.env("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"), "true") {
		raw = firstOf(firstOf(l.env("AWS_ENDPOINT_URL_"+id), l.env("AWS_ENDPOINT_URL")), raw)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("the %s endpoint %q is not an http(s) URL", id, raw)
	}
	return u, nil
}

// get sends req and returns the response body, or an error naming what
// and the endpoint's host only: the URL may hold a session token.
func get(req *http.Request, what string) ([]byte, int, error) {
	resp, err := httpClient.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, 0, fmt.Errorf("%s at %s: %w", what, req.URL.Host, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, 0, fmt.Errorf("%s at %s: reading the response: %w", what, req.URL.Host, err)
	}
	return body, resp.StatusCode, nil
}

// stsResponse is the XML answer of STS AssumeRole and
// AssumeRoleWithWebIdentity, or its error.
type stsResponse struct {
	Role     stsCredentials `xml:"AssumeRoleResult>Credentials"`
	Identity stsCredentials `xml:"AssumeRoleWithWebIdentityResult>Credentials"`
	Code     string         `xml:"Error>Code"`
	Message  string         `xml:"Error>Message"`
}

type stsCredentials struct {
	AccessKeyID     string `xml:"AccessKeyId"`
	SecretAccessKey string `xml:"SecretAccessKey"`
	SessionToken    string `xml:"SessionToken"`
}

// roleParams are the parameters of an AssumeRole call from profile's
// settings (role_arn, role_session_name, external_id, duration_seconds).
func (l *loader) roleParams(action, profile string, p map[string]string) (url.Values, error) {
	q := url.Values{"Action": {action}, "Version": {"2011-06-15"}, "RoleArn": {p["role_arn"]},
		"RoleSessionName": {firstOf(p["role_session_name"], fmt.Sprintf("runner-%d", time.Now().UnixNano()))}}
	if v := p["external_id"]; v != "" {
		q.Set("ExternalId", v)
	}
	if v := p["duration_seconds"]; v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 900 || n > 43200 {
			return nil, fmt.Errorf("profile %s: duration_seconds %q is not a number of seconds from 900 to 43200", profile, v)
		}
		q.Set("DurationSeconds", v)
	}
	return q, nil
}

// assumeRole calls STS AssumeRole for profile's role_arn with creds,
// signed with Signature Version 4 in the query string.
func (l *loader) assumeRole(profile string, p map[string]string, creds Credentials) (Credentials, error) {
	q, err := l.roleParams("AssumeRole", profile, p)
	if err != nil {
		return Credentials{}, err
	}
	u, err := l.endpoint("STS", "sts")
	if err != nil {
		return Credentials{}, err
	}
	signed := presign{Scheme: u.Scheme, Method: "GET", Host: u.Host, Path: firstOf(u.Path, "/"), Query: q,
		Region: l.region, Service: "sts", Time: time.Now(), Expires: time.Minute,
		PayloadHash: emptyPayload, Creds: creds}.URL()
	req, err := http.NewRequestWithContext(l.ctx, "GET", signed, nil)
	if err != nil { // not err itself: the URL holds the session token
		return Credentials{}, fmt.Errorf("assuming role %s of profile %s: the STS endpoint %s makes no valid request", p["role_arn"], profile, u.Host)
	}
	return l.stsCall(req, "assuming role "+p["role_arn"]+" of profile "+profile)
}

// webIdentity calls STS AssumeRoleWithWebIdentity (unsigned) for role_arn
// with the token in web_identity_token_file; from names where they come
// from (a profile, or AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE).
func (l *loader) webIdentity(from string, p map[string]string) (Credentials, error) {
	what := "assuming role " + p["role_arn"] + " with the web identity of " + from
	q, err := l.roleParams("AssumeRoleWithWebIdentity", from, p)
	if err != nil {
		return Credentials{}, err
	}
	token, err := boundedfile.ReadFile(p["web_identity_token_file"], boundedfile.AWSShared)
	if err != nil {
		return Credentials{}, fmt.Errorf("%s: %w", what, err)
	}
	q.Set("WebIdentityToken", strings.TrimSpace(string(token)))
	u, err := l.endpoint("STS", "sts")
	if err != nil {
		return Credentials{}, err
	}
	u.Path = firstOf(u.Path, "/")
	req, err := http.NewRequestWithContext(l.ctx, "POST", u.String(), strings.NewReader(q.Encode()))
	if err != nil {
		return Credentials{}, fmt.Errorf("%s: %w", what, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	return l.stsCall(req, what)
}

// stsCall sends an STS request and reads the credentials it returns.
func (l *loader) stsCall(req *http.Request, what string) (Credentials, error) {
	body, status, err := get(req, what)
	if err != nil {
		return Credentials{}, err
	}
	var r stsResponse
	if err := xml.Unmarshal(body, &r); err != nil {
		return Credentials{}, fmt.Errorf("%s: STS answered status %d with no XML response: %w", what, status, err)
	}
	if status != http.StatusOK || r.Code != "" {
		return Credentials{}, fmt.Errorf("%s: STS refused (status %d): %s: %s", what, status, firstOf(r.Code, "no error code"), r.Message)
	}
	c := r.Role
	if c.AccessKeyID == "" {
		c = r.Identity
	}
	if c.AccessKeyID == "" || c.SecretAccessKey == "" || c.SessionToken == "" {
		return Credentials{}, fmt.Errorf("%s: STS's response holds no credentials", what)
	}
	return Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.SessionToken}, nil
}
