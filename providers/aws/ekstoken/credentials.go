package ekstoken

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Credentials are static AWS keys, with a session token for temporary ones.
type Credentials struct {
	AccessKeyID, SecretAccessKey, SessionToken string
}

// unsupported are profile settings that need more than static keys: what
// the token command cannot do, with what it would take.
var unsupported = []struct{ key, what string }{
	{"role_arn", "assume-role profiles"},
	{"source_profile", "assume-role profiles"},
	{"credential_process", "credential_process profiles"},
	{"sso_session", "SSO profiles"},
	{"sso_start_url", "SSO profiles"},
	{"sso_account_id", "SSO profiles"},
	{"web_identity_token_file", "web identity profiles"},
}

// LoadCredentials finds the keys to sign with: AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) from env, else the static
// keys of profile (empty: $AWS_PROFILE, else "default") in the shared
// credentials file ($AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials)
// or the config file ($AWS_CONFIG_FILE, else ~/.aws/config). A profile
// given explicitly (--profile, which the eks hook's kubeconfig passes when
// aws:profile is set) comes first when it has keys, as with `aws
// --profile` and the aws provider's profile setting: the token must be
// the identity that made the cluster; found nowhere, the environment's
// keys stand in. SSO, assume-role, credential_process and web identity
// profiles are refused: their credentials need calls this command does
// not make.
func LoadCredentials(env func(string) string, profile string) (Credentials, error) {
	fromEnv := Credentials{AccessKeyID: env("AWS_ACCESS_KEY_ID"), SecretAccessKey: env("AWS_SECRET_ACCESS_KEY"), SessionToken: env("AWS_SESSION_TOKEN")}
	hasEnv := fromEnv.AccessKeyID != "" && fromEnv.SecretAccessKey != ""
	if profile == "" && hasEnv {
		return fromEnv, nil
	}
	if profile == "" {
		profile = env("AWS_PROFILE")
	}
	if profile == "" {
		profile = "default"
	}
	home := env("HOME")
	credFile := firstOf(env("AWS_SHARED_CREDENTIALS_FILE"), filepath.Join(home, ".aws", "credentials"))
	cfgFile := firstOf(env("AWS_CONFIG_FILE"), filepath.Join(home, ".aws", "config"))
	sections := []struct{ file, name string }{{credFile, profile}, {cfgFile, "profile " + profile}}
	if profile == "default" {
		sections = append(sections, struct{ file, name string }{cfgFile, "default"})
	}
	for _, s := range sections {
		keys, found, err := readSection(s.file, s.name)
		if err != nil {
			return Credentials{}, err
		}
		if !found {
			continue
		}
		for _, u := range unsupported {
			if _, ok := keys[u.key]; ok {
				return Credentials{}, fmt.Errorf("profile %s in %s sets %s: runner's EKS token helper does not support %s; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) instead, or use a profile with static keys", profile, s.file, u.key, u.what)
			}
		}
		if keys["aws_access_key_id"] != "" && keys["aws_secret_access_key"] != "" {
			return Credentials{AccessKeyID: keys["aws_access_key_id"], SecretAccessKey: keys["aws_secret_access_key"],
				SessionToken: keys["aws_session_token"]}, nil
		}
	}
	if hasEnv {
		return fromEnv, nil
	}
	return Credentials{}, fmt.Errorf("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give profile %s aws_access_key_id and aws_secret_access_key in %s", profile, credFile)
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// readSection returns the keys of section name of an INI file (a missing
// file has no sections).
func readSection(path, name string) (map[string]string, bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading AWS credentials: %w", err)
	}
	defer f.Close()
	keys, found, in := map[string]string{}, false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && strings.HasSuffix(line, "]"):
			in = strings.Join(strings.Fields(line[1:len(line)-1]), " ") == name
			found = found || in
		case in:
			if k, v, ok := strings.Cut(line, "="); ok {
				keys[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, false, fmt.Errorf("reading AWS credentials from %s: %w", path, err)
	}
	return keys, found, nil
}
