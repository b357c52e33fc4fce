package ekstoken

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// secrets are the secret keys the fakes know, by access key id: the fake
// STS checks each request's signature with them.
var secrets = map[string]string{"BASE": "basesecret", "ENV": "envsecret", "PROC": "procsecret"}

// fakeSTS answers AssumeRole (checking its SigV4 query signature) with
// credentials named after the role and the signer ("ROLE(x) from BASE"), and
// AssumeRoleWithWebIdentity with ones named after the token.
func fakeSTS(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Error(err)
		}
		q, err := url.ParseQuery(string(body))
		if err != nil {
			t.Error(err)
		}
		role := q.Get("RoleArn")
		var akid string
		switch q.Get("Action") {
		case "AssumeRole":
			akid = stsSignerOK(t, r, body)
			if akid == "" {
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprint(w, `<ErrorResponse><Error><Code>SignatureDoesNotMatch</Code><Message>bad signature</Message></Error></ErrorResponse>`)
				return
			}
			if role == "arn:aws:iam::1:role/denied" {
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprint(w, `<ErrorResponse><Error><Code>AccessDenied</Code><Message>not authorized to assume it</Message></Error></ErrorResponse>`)
				return
			}
			akid = fmt.Sprintf("ROLE(%s|%s|%s) from %s", role[strings.LastIndex(role, "/")+1:], q.Get("ExternalId"), q.Get("DurationSeconds"), akid)
		case "AssumeRoleWithWebIdentity":
			if r.Method != "POST" {
				t.Errorf("web identity by %s", r.Method)
			}
			akid = "WEB(" + role[strings.LastIndex(role, "/")+1:] + ") from " + q.Get("WebIdentityToken")
		default:
			t.Errorf("STS action %q", q.Get("Action"))
		}
		fmt.Fprintf(w, `<%[1]sResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><%[1]sResult><Credentials>
<AccessKeyId>%[2]s</AccessKeyId><SecretAccessKey>s-%[2]s</SecretAccessKey><SessionToken>t-%[2]s</SessionToken>
<Expiration>2030-01-01T00:00:00Z</Expiration></Credentials></%[1]sResult></%[1]sResponse>`, q.Get("Action"), akid)
	}))
}

// stsSignerOK checks a request's signature with the secret of its access
// key id: it returns the id, or "" when the signature is not that secret's.
func stsSignerOK(t *testing.T, r *http.Request, body []byte) string {
	h := r.Header.Clone()
	h.Set("Content-Length", strconv.FormatInt(r.ContentLength, 10))
	req := signedRequest{Method: r.Method, Host: r.Host, Path: r.URL.Path, Query: r.URL.Query(), Header: h, PayloadHash: hexSHA256(body)}
	akid := req.accessKeyID()
	if akid == "" || req.signature(secretOf(akid)) != req.fields().Signature {
		return ""
	}
	return akid
}

// secretOf is the secret key of akid: a fake's answer "X" has "s-X".
func secretOf(akid string) string {
	if s, ok := secrets[akid]; ok {
		return s
	}
	return "s-" + akid
}

// fakeSSO answers GetRoleCredentials for bearer token "good".
func fakeSSO(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/federation/credentials" {
			t.Errorf("SSO path %s", r.URL.Path)
		}
		if r.Header.Get("x-amz-sso_bearer_token") != "good" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"message":"Session token not found or invalid"}`)
			return
		}
		id := "SSO(" + r.URL.Query().Get("account_id") + "|" + r.URL.Query().Get("role_name") + ")"
		json.NewEncoder(w).Encode(map[string]any{"roleCredentials": map[string]any{
			"accessKeyId": id, "secretAccessKey": "s-" + id, "sessionToken": "t-" + id, "expiration": 1893456000000}})
	}))
}

// ssoCache writes a cached SSO login for key.
func ssoCache(t *testing.T, home, key, token string, expires time.Time) {
	sum := sha1.Sum([]byte(key))
	p := filepath.Join(home, ".aws", "sso", "cache", hex.EncodeToString(sum[:])+".json")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]string{"accessToken": token, "expiresAt": expires.UTC().Format(time.RFC3339), "region": "eu-west-1"})
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// script writes an executable shell script and returns its path.
func script(t *testing.T, dir, name, body string) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

const sourcesConfig = `[profile chain]
role_arn = arn:aws:iam::1:role/top
source_profile = middle
external_id = ext-1
duration_seconds = 1800
[profile middle]
role_arn = arn:aws:iam::1:role/middle
source_profile = base
[profile base]
region = eu-west-1
[profile selfref]
role_arn = arn:aws:iam::1:role/self
source_profile = selfref
aws_access_key_id = BASE
aws_secret_access_key = basesecret
[profile loop1]
role_arn = arn:aws:iam::1:role/a
source_profile = loop2
[profile loop2]
role_arn = arn:aws:iam::1:role/b
source_profile = loop1
[profile fromenv]
role_arn = arn:aws:iam::1:role/env
credential_source = Environment
[profile both]
role_arn = arn:aws:iam::1:role/x
credential_source = Environment
source_profile = base
[profile mfa]
role_arn = arn:aws:iam::1:role/x
source_profile = base
mfa_serial = arn:aws:iam::1:mfa/me
[profile denied]
role_arn = arn:aws:iam::1:role/denied
source_profile = base
[profile noprofile]
role_arn = arn:aws:iam::1:role/x
source_profile = ghost
[profile web]
role_arn = arn:aws:iam::1:role/web
web_identity_token_file = %[1]s/webtoken
[profile sso]
sso_session = corp
sso_account_id = 111122223333
sso_role_name = Admin
[profile sso-on-role]
role_arn = arn:aws:iam::1:role/fromsso
source_profile = sso
[sso-session corp]
sso_start_url = https://corp.awsapps.com/start
sso_region = eu-west-1
sso_registration_scopes = sso:account:access
[profile ssoexpired]
sso_session = oldsession
sso_account_id = 1
sso_role_name = R
[sso-session oldsession]
sso_start_url = https://oldsession.awsapps.com/start
sso_region = eu-west-1
[profile legacy]
sso_start_url = https://legacy.awsapps.com/start
sso_region = us-east-1
sso_account_id = 444455556666
sso_role_name = ReadOnly
[profile expired]
sso_start_url = https://old.awsapps.com/start
sso_region = us-east-1
sso_account_id = 1
sso_role_name = R
[profile revoked]
sso_start_url = https://revoked.awsapps.com/start
sso_region = us-east-1
sso_account_id = 1
sso_role_name = R
[profile nologin]
sso_session = nosuch
sso_account_id = 1
sso_role_name = R
[profile process]
credential_process = %[1]s/creds.sh "PROC" procsecret
[profile process-on-role]
role_arn = arn:aws:iam::1:role/fromproc
source_profile = process
[profile process-fails]
credential_process = %[1]s/fail.sh
[profile process-garbage]
credential_process = %[1]s/garbage.sh
[profile process-v2]
credential_process = %[1]s/creds.sh PROC procsecret 2
[profile process-expired]
credential_process = %[1]s/creds.sh PROC procsecret 1 2001-01-01T00:00:00Z
`

func TestLoadCredentialSources(t *testing.T) {
	home := t.TempDir()
	sts, sso := fakeSTS(t), fakeSSO(t)
	defer sts.Close()
	defer sso.Close()
	if err := os.MkdirAll(filepath.Join(home, ".aws"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(home, ".aws", "config"), []byte(fmt.Sprintf(sourcesConfig, home)), 0o600)
	os.WriteFile(filepath.Join(home, ".aws", "credentials"), []byte("[base]\naws_access_key_id = BASE\naws_secret_access_key = basesecret\n"), 0o600)
	os.WriteFile(filepath.Join(home, "webtoken"), []byte("jwt-1"), 0o600)
	script(t, home, "creds.sh", `printf '{"Version": %s, "AccessKeyId": "%s", "SecretAccessKey": "%s", "SessionToken": "tok", "Expiration": "%s"}' "${3:-1}" "$1" "$2" "${4:-2099-01-01T00:00:00Z}"`)
	script(t, home, "fail.sh", `echo "no credentials for you" >&2; exit 3`)
	script(t, home, "garbage.sh", `echo "AccessKeyId=PROC SecretAccessKey=leakedsecret"`)
	ssoCache(t, home, "corp", "good", time.Now().Add(time.Hour))
	ssoCache(t, home, "https://legacy.awsapps.com/start", "good", time.Now().Add(time.Hour))
	ssoCache(t, home, "https://old.awsapps.com/start", "good", time.Now().Add(-time.Minute))
	ssoCache(t, home, "oldsession", "good", time.Now().Add(-time.Minute))
	ssoCache(t, home, "https://revoked.awsapps.com/start", "revoked-token", time.Now().Add(time.Hour))

	envKeys := map[string]string{"AWS_ACCESS_KEY_ID": "ENV", "AWS_SECRET_ACCESS_KEY": "envsecret"}
	tests := []struct {
		name    string
		profile string
		env     map[string]string
		want    string // access key id
		err     string
	}{
		{"static keys", "base", nil, "BASE", ""},
		{"role chain with external id and duration", "chain", nil, "ROLE(top|ext-1|1800) from ROLE(middle||900) from BASE", ""},
		{"source_profile itself with keys", "selfref", nil, "ROLE(self||900) from BASE", ""},
		{"credential_source Environment", "fromenv", envKeys, "ROLE(env||900) from ENV", ""},
		{"web identity profile", "web", nil, "WEB(web) from jwt-1", ""},
		{"web identity from the environment", "", map[string]string{"AWS_ROLE_ARN": "arn:aws:iam::1:role/pod",
			"AWS_WEB_IDENTITY_TOKEN_FILE": filepath.Join(home, "webtoken")}, "WEB(pod) from jwt-1", ""},
		{"SSO session", "sso", nil, "SSO(111122223333|Admin)", ""},
		{"legacy SSO", "legacy", nil, "SSO(444455556666|ReadOnly)", ""},
		{"role from SSO", "sso-on-role", nil, "ROLE(fromsso||900) from SSO(111122223333|Admin)", ""},
		{"AWS_PROFILE SSO", "", map[string]string{"AWS_PROFILE": "sso"}, "SSO(111122223333|Admin)", ""},
		{"a given SSO profile wins over the environment", "sso", envKeys, "SSO(111122223333|Admin)", ""},
		{"credential_process", "process", nil, "PROC", ""},
		{"role from credential_process", "process-on-role", nil, "ROLE(fromproc||900) from PROC", ""},

		{"source_profile loop", "loop1", nil, "", "profile loop1: role arn:aws:iam::1:role/b cannot be assumed as configured: its source_profile chain loops"},
		{"source_profile missing", "noprofile", nil, "", "profile noprofile: its source_profile ghost could not be found in "},
		{"source_profile and credential_source", "both", envKeys, "", "only one credential type may be specified per profile"},
		{"credential_source Environment without keys", "fromenv", nil, "", "static credentials are empty"},
		{"mfa", "mfa", nil, "", "cannot ask for an MFA code"},
		{"role denied", "denied", nil, "", "StatusCode: 403, RequestID: , api error AccessDenied: not authorized to assume it"},
		{"expired SSO login", "expired", nil, "", "the SSO login of profile expired is missing or expired"},
		{"expired SSO login says how to log in", "expired", nil, "", "run `aws sso login --profile expired`"},
		{"expired SSO session login", "ssoexpired", nil, "", "the SSO login of profile ssoexpired is missing or expired: run `aws sso login --profile ssoexpired`"},
		{"SSO login refused", "revoked", nil, "", "the SSO portal refused the cached login of profile revoked (status 401): run `aws sso login --profile revoked`"},
		{"SSO session missing", "nologin", nil, "", "failed to find SSO session section, nosuch"},
		{"no cached SSO login", "sso", map[string]string{"HOME": t.TempDir(), "AWS_CONFIG_FILE": filepath.Join(home, ".aws", "config")},
			"", "profile sso has no cached SSO login: run `aws sso login --profile sso`"},
		{"credential_process fails", "process-fails", nil, "", "credential_process of profile process-fails failed (its error output is above): failed to refresh cached credentials, process provider error: error in credential_process: exit status 3"},
		{"credential_process garbage", "process-garbage", nil, "", "printed no JSON object"},
		{"credential_process Version 2", "process-v2", nil, "", "wrong version in process output (not 1)"},
		{"credential_process expired", "process-expired", nil, "", "the credentials of profile process-expired expired at 2001-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"AWS_ENDPOINT_URL_STS": sts.URL, "AWS_ENDPOINT_URL_SSO": sso.URL}
			for k, v := range tt.env {
				env[k] = v
			}
			isolate(t, firstOf(env["HOME"], home), env)
			got, err := Credentials(context.Background(), tt.profile, "eu-west-1", time.Now())
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				for _, secret := range []string{"basesecret", "envsecret", "procsecret", "leakedsecret", "good", "revoked-token", "jwt-1"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("the error shows secret %q: %v", secret, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.AccessKeyID != tt.want || got.SecretAccessKey != secretOf(tt.want) {
				t.Fatalf("got %s/%s, want %s", got.AccessKeyID, got.SecretAccessKey, tt.want)
			}
		})
	}
}
