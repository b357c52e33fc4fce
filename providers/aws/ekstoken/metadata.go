package ekstoken

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// imdsClient asks the EC2 instance metadata service: off EC2 nothing
// answers, and the search must give up soon.
var imdsClient = &http.Client{Timeout: 2 * time.Second}

// metadataCredentials is the JSON of the ECS container credentials
// endpoint and of IMDS's iam/security-credentials/<role>.
type metadataCredentials struct {
	Code            string `json:"Code"`
	AccessKeyID     string `json:"AccessKeyId"`
	SecretAccessKey string `json:"SecretAccessKey"`
	Token           string `json:"Token"`
}

func (m metadataCredentials) credentials(what string) (Credentials, error) {
	if (m.Code != "" && m.Code != "Success") || m.AccessKeyID == "" || m.SecretAccessKey == "" {
		return Credentials{}, fmt.Errorf("%s answered without credentials (code %q)", what, m.Code)
	}
	return Credentials{AccessKeyID: m.AccessKeyID, SecretAccessKey: m.SecretAccessKey, SessionToken: m.Token}, nil
}

// fromContainer returns the credentials of the ECS (or EKS Pod Identity)
// container credentials endpoint: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI
// on 169.254.170.2, or AWS_CONTAINER_CREDENTIALS_FULL_URI (https, or http
// to a loopback or the container hosts' address), with the
// Authorization of AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE or
// AWS_CONTAINER_AUTHORIZATION_TOKEN. found is false when neither is set.
func (l *loader) fromContainer() (c Credentials, found bool, err error) {
	raw := l.env("AWS_CONTAINER_CREDENTIALS_FULL_URI")
	if rel := l.env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"); rel != "" {
		raw = "http://169.254.170.2" + rel
	}
	if raw == "" {
		return Credentials{}, false, nil
	}
	const what = "the container credentials endpoint"
	u, err := url.Parse(raw)
	if err != nil || !allowedContainerHost(u) {
		return Credentials{}, true, fmt.Errorf("%s %q must be https, or http to a loopback address or 169.254.170.2 or 169.254.170.23", what, raw)
	}
	req, err := http.NewRequestWithContext(l.ctx, "GET", u.String(), nil)
	if err != nil {
		return Credentials{}, true, fmt.Errorf("%s: %w", what, err)
	}
	auth := l.env("AWS_CONTAINER_AUTHORIZATION_TOKEN")
	if f := l.env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"); f != "" {
		b, err := boundedfile.ReadFile(f, boundedfile.AWSShared)
		if err != nil {
			return Credentials{}, true, fmt.Errorf("reading the authorization token of %s: %w", what, err)
		}
		auth = strings.TrimSpace(string(b))
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	body, status, err := get(req, "asking "+what)
	if err != nil {
		return Credentials{}, true, err
	}
	var m metadataCredentials
	if status != http.StatusOK || json.Unmarshal(body, &m) != nil {
		return Credentials{}, true, fmt.Errorf("%s answered status %d without credentials", what, status)
	}
	c, err = m.credentials(what)
	return c, true, err
}

func allowedContainerHost(u *url.URL) bool {
	if u.Scheme == "https" {
		return true
	}
	if u.Scheme != "http" {
		return false
	}
	h := u.Hostname()
	if h == "localhost" || h == "169.254.170.2" || h == "169.254.170.23" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// fromInstance returns the credentials of the EC2 instance's role from
// the instance metadata service (IMDSv2: a session token, then
// iam/security-credentials/) at AWS_EC2_METADATA_SERVICE_ENDPOINT, else
// http://169.254.169.254. found is false when AWS_EC2_METADATA_DISABLED is
// true, nothing answers (not on EC2) or the instance has no role.
func (l *loader) fromInstance() (c Credentials, found bool, err error) {
	if strings.EqualFold(l.env("AWS_EC2_METADATA_DISABLED"), "true") {
		return Credentials{}, false, nil
	}
	base := strings.TrimSuffix(firstOf(l.env("AWS_EC2_METADATA_SERVICE_ENDPOINT"), "http://169.254.169.254"), "/")
	call := func(method, path string, header map[string]string) (string, int, error) {
		req, err := http.NewRequestWithContext(l.ctx, method, base+path, nil)
		if err != nil {
			return "", 0, err
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := imdsClient.Do(req)
		if err != nil {
			return "", 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		return string(b), resp.StatusCode, err
	}
	token, status, err := call("PUT", "/latest/api/token", map[string]string{"X-aws-ec2-metadata-token-ttl-seconds": "21600"})
	if err != nil || status != http.StatusOK {
		return Credentials{}, false, nil
	}
	auth := map[string]string{"X-aws-ec2-metadata-token": token}
	const path = "/latest/meta-data/iam/security-credentials/"
	roles, status, err := call("GET", path, auth)
	if err != nil || status != http.StatusOK || strings.TrimSpace(roles) == "" {
		return Credentials{}, false, nil
	}
	role := strings.TrimSpace(strings.SplitN(strings.TrimSpace(roles), "\n", 2)[0])
	what := fmt.Sprintf("the instance metadata service at %s (role %s)", base, role)
	doc, status, err := call("GET", path+url.PathEscape(role), auth)
	if err != nil {
		return Credentials{}, true, fmt.Errorf("asking %s: %w", what, err)
	}
	var m metadataCredentials
	if status != http.StatusOK || json.Unmarshal([]byte(doc), &m) != nil {
		return Credentials{}, true, fmt.Errorf("%s answered status %d without credentials", what, status)
	}
	c, err = m.credentials(what)
	return c, true, err
}
