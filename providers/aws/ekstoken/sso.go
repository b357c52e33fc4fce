package ekstoken

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// ssoSettings are where an SSO profile's credentials come from.
type ssoSettings struct {
	startURL, region, account, role string
	// cacheKey names the cached token's file: the sso-session's name, or
	// the start URL of a legacy profile (without sso_session).
	cacheKey string
}

// ssoConfig reads an SSO profile's settings: sso_account_id and
// sso_role_name with sso_session naming an [sso-session] section (which
// holds sso_start_url and sso_region), or the legacy form with
// sso_start_url and sso_region in the profile itself.
func (l *loader) ssoConfig(profile string, p map[string]string) (ssoSettings, error) {
	s := ssoSettings{startURL: p["sso_start_url"], region: p["sso_region"], account: p["sso_account_id"], role: p["sso_role_name"]}
	if name := p["sso_session"]; name != "" {
		sess, ok := l.files.ssoSession(name)
		if !ok {
			return s, fmt.Errorf("profile %s names sso_session %s, which %s has no [sso-session %s] section for", profile, name, l.files.cfgFile, name)
		}
		for key, v := range map[string]string{"sso_start_url": s.startURL, "sso_region": s.region} {
			if v != "" && v != sess[key] {
				return s, fmt.Errorf("profile %s sets %s %q, but its sso_session %s says %q", profile, key, v, name, sess[key])
			}
		}
		s.startURL, s.region, s.cacheKey = sess["sso_start_url"], sess["sso_region"], name
	} else {
		s.cacheKey = s.startURL
	}
	for key, v := range map[string]string{"sso_start_url": s.startURL, "sso_region": s.region, "sso_account_id": s.account, "sso_role_name": s.role} {
		if v == "" {
			return s, fmt.Errorf("SSO profile %s has no %s", profile, key)
		}
	}
	if !regionName.MatchString(s.region) {
		return s, fmt.Errorf("SSO profile %s: sso_region %q is not an AWS region", profile, s.region)
	}
	return s, nil
}

// ssoToken is the part of a cached SSO token file (written by `aws sso
// login`) that is read.
type ssoToken struct {
	AccessToken string `json:"accessToken"`
	ExpiresAt   string `json:"expiresAt"`
}

// fromSSO returns the role credentials of an SSO profile: the access token
// that `aws sso login` cached in ~/.aws/sso/cache/<hex SHA-1 of the cache
// key>.json buys them from the SSO portal's GetRoleCredentials. An expired
// token is not refreshed: the user logs in again.
func (l *loader) fromSSO(profile string, p map[string]string) (Credentials, error) {
	s, err := l.ssoConfig(profile, p)
	if err != nil {
		return Credentials{}, err
	}
	login := fmt.Sprintf("run `aws sso login --profile %s`", profile)
	sum := sha1.Sum([]byte(s.cacheKey))
	path := filepath.Join(l.env("HOME"), ".aws", "sso", "cache", hex.EncodeToString(sum[:])+".json")
	b, err := boundedfile.ReadFile(path, boundedfile.AWSShared)
	if os.IsNotExist(err) {
		return Credentials{}, fmt.Errorf("SSO profile %s has no cached login (%s): %s", profile, path, login)
	}
	if err != nil {
		return Credentials{}, fmt.Errorf("SSO profile %s: reading its cached login: %w", profile, err)
	}
	var tok ssoToken
	if err := json.Unmarshal(b, &tok); err != nil || tok.AccessToken == "" {
		return Credentials{}, fmt.Errorf("SSO profile %s: the cached login %s holds no access token: %s", profile, path, login)
	}
	exp, err := time.Parse(time.RFC3339, tok.ExpiresAt)
	if err != nil {
		return Credentials{}, fmt.Errorf("SSO profile %s: the cached login %s has no valid expiresAt: %s", profile, path, login)
	}
	if !time.Now().Before(exp) {
		return Credentials{}, fmt.Errorf("the SSO login of profile %s expired at %s: %s", profile, exp.UTC().Format(time.RFC3339), login)
	}
	return l.roleCredentials(profile, s, tok.AccessToken, login)
}

// roleCredentials calls the SSO portal's GetRoleCredentials.
func (l *loader) roleCredentials(profile string, s ssoSettings, token, login string) (Credentials, error) {
	sso := &loader{ctx: l.ctx, env: l.env, region: s.region}
	u, err := sso.endpoint("SSO", "portal.sso")
	if err != nil {
		return Credentials{}, err
	}
	u.Path += "/federation/credentials"
	u.RawQuery = url.Values{"account_id": {s.account}, "role_name": {s.role}}.Encode()
	what := fmt.Sprintf("getting the credentials of role %s in account %s for SSO profile %s", s.role, s.account, profile)
	req, err := http.NewRequestWithContext(l.ctx, "GET", u.String(), nil)
	if err != nil {
		return Credentials{}, fmt.Errorf("%s: %w", what, err)
	}
	req.Header.Set("x-amz-sso_bearer_token", token)
	body, status, err := get(req, what)
	if err != nil {
		return Credentials{}, err
	}
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		return Credentials{}, fmt.Errorf("%s: the SSO portal refused the cached login (status %d): %s", what, status, login)
	}
	var r struct {
		RoleCredentials struct {
			AccessKeyID     string `json:"accessKeyId"`
			SecretAccessKey string `json:"secretAccessKey"`
			SessionToken    string `json:"sessionToken"`
		} `json:"roleCredentials"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return Credentials{}, fmt.Errorf("%s: the SSO portal answered status %d with no JSON: %w", what, status, err)
	}
	c := r.RoleCredentials
	if status != http.StatusOK || c.AccessKeyID == "" || c.SecretAccessKey == "" {
		return Credentials{}, fmt.Errorf("%s: the SSO portal answered status %d without credentials: %s", what, status, firstOf(r.Message, "no message"))
	}
	return Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.SessionToken}, nil
}
