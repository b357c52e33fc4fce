package ekstoken

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Credentials are AWS keys, with a session token for temporary ones.
type Credentials struct {
	AccessKeyID, SecretAccessKey, SessionToken string
}

// loader finds credentials as the aws CLI and the AWS SDKs do.
type loader struct {
	ctx   context.Context
	env   func(string) string
	files *sharedConfig
	// region is where STS is called (the cluster's: its partition is the
	// credentials').
	region string
}

// LoadCredentials finds the keys to sign a token for a cluster in region
// with, in the aws CLI's order: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY
// (and AWS_SESSION_TOKEN), or AWS_ROLE_ARN with AWS_WEB_IDENTITY_TOKEN_FILE,
// from env; else profile (empty: $AWS_PROFILE, else "default") of the
// shared credentials file ($AWS_SHARED_CREDENTIALS_FILE, else
// ~/.aws/credentials) and config file ($AWS_CONFIG_FILE, else
// ~/.aws/config); else the ECS container credentials endpoint; else the EC2
// instance's role. A profile given explicitly (--profile, which the eks
// hook's kubeconfig passes when aws:profile is set) is used as `aws
// --profile` uses it: the token must be the identity that made the
// cluster, so the environment's keys never stand in. A profile that
// neither file holds is refused ("the config profile could not be
// found"), and one that holds no credentials leaves only the container's
// and the instance's.
//
// A profile's credentials are, as the AWS SDKs read them: a role
// (role_arn) assumed with the credentials of source_profile (recursively)
// or of credential_source, or with web_identity_token_file; static keys;
// an SSO login (sso_session or sso_start_url) cached by `aws sso login`;
// or what credential_process prints. STS and the SSO portal are reached at
// AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL_SSO or AWS_ENDPOINT_URL when set.
func LoadCredentials(ctx context.Context, env func(string) string, profile, region string) (Credentials, error) {
	files, err := loadSharedConfig(env)
	if err != nil {
		return Credentials{}, err
	}
	l := &loader{ctx: ctx, env: env, files: files, region: region}
	explicit := profile != ""
	if !explicit {
		if c, ok, err := l.fromEnvironment(); ok || err != nil {
			return c, err
		}
		profile = firstOf(env("AWS_PROFILE"), "default")
	}
	if _, found := files.profile(profile); explicit && !found {
		return Credentials{}, fmt.Errorf("the config profile (%s) could not be found in %s or %s; add it (`aws configure --profile %s`) or name another one", profile, files.credFile, files.cfgFile, profile)
	}
	if c, ok, err := l.fromProfile(profile, nil); ok || err != nil {
		return c, err
	}
	if c, ok, err := l.fromContainer(); ok || err != nil {
		return c, err
	}
	if c, ok, err := l.fromInstance(); ok || err != nil {
		return c, err
	}
	if explicit {
		return Credentials{}, fmt.Errorf("profile %s has no credentials in %s or %s (keys, a role, SSO or credential_process), and the environment's keys are not used for a profile given by name, as with `aws --profile`", profile, files.credFile, files.cfgFile)
	}
	return Credentials{}, fmt.Errorf("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give profile %s credentials in %s or %s (keys, a role, SSO or credential_process)", profile, files.credFile, files.cfgFile)
}

// fromEnvironment returns the environment's keys, or the role of
// AWS_ROLE_ARN assumed with the web identity token of
// AWS_WEB_IDENTITY_TOKEN_FILE.
func (l *loader) fromEnvironment() (Credentials, bool, error) {
	c := Credentials{AccessKeyID: l.env("AWS_ACCESS_KEY_ID"), SecretAccessKey: l.env("AWS_SECRET_ACCESS_KEY"), SessionToken: l.env("AWS_SESSION_TOKEN")}
	if c.AccessKeyID != "" && c.SecretAccessKey != "" {
		return c, true, nil
	}
	if file, role := l.env("AWS_WEB_IDENTITY_TOKEN_FILE"), l.env("AWS_ROLE_ARN"); file != "" && role != "" {
		c, err := l.webIdentity("AWS_WEB_IDENTITY_TOKEN_FILE", map[string]string{"role_arn": role,
			"web_identity_token_file": file, "role_session_name": l.env("AWS_ROLE_SESSION_NAME")})
		return c, true, err
	}
	return Credentials{}, false, nil
}

// fromProfile returns the credentials of profile name; found is false when
// no file holds the profile or it sets no credentials. chain are the
// profiles whose source_profile led here: there, static keys win over a
// role (as in the AWS SDKs), and a profile met again is a loop.
func (l *loader) fromProfile(name string, chain []string) (c Credentials, found bool, err error) {
	p, ok := l.files.profile(name)
	if !ok {
		return Credentials{}, false, nil
	}
	static := Credentials{AccessKeyID: p["aws_access_key_id"], SecretAccessKey: p["aws_secret_access_key"], SessionToken: p["aws_session_token"]}
	hasStatic := static.AccessKeyID != "" && static.SecretAccessKey != ""
	switch {
	case hasStatic && len(chain) > 0:
		return static, true, nil
	case p["role_arn"] != "":
		c, err := l.fromRole(name, p, chain, static, hasStatic)
		return c, true, err
	case hasStatic:
		return static, true, nil
	case p["sso_session"] != "" || p["sso_start_url"] != "":
		c, err := l.fromSSO(name, p)
		return c, true, err
	case p["credential_process"] != "":
		c, err := l.fromProcess(name, p["credential_process"])
		return c, true, err
	case p["aws_access_key_id"] != "" || p["aws_secret_access_key"] != "":
		return Credentials{}, true, fmt.Errorf("profile %s sets only one of aws_access_key_id and aws_secret_access_key", name)
	}
	return Credentials{}, false, nil
}

// fromRole assumes profile name's role_arn with the credentials of its
// source_profile or credential_source, or with its web identity token.
func (l *loader) fromRole(name string, p map[string]string, chain []string, static Credentials, hasStatic bool) (Credentials, error) {
	if p["mfa_serial"] != "" {
		return Credentials{}, fmt.Errorf("profile %s sets mfa_serial: runner's EKS token helper cannot ask for an MFA code; use credential_process (a tool that asks for it), SSO, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN of a session made beforehand", name)
	}
	if p["web_identity_token_file"] != "" {
		return l.webIdentity("profile "+name, p)
	}
	source, credSource := p["source_profile"], p["credential_source"]
	var creds Credentials
	switch {
	case source != "" && credSource != "":
		return Credentials{}, fmt.Errorf("profile %s sets both source_profile and credential_source; keep one", name)
	case source == name && hasStatic:
		creds = static
	case source != "":
		if source == name || slices.Contains(chain, source) {
			return Credentials{}, fmt.Errorf("profile %s: source_profile makes a loop (%s -> %s); a profile's credentials must end in keys, SSO or credential_process", name, strings.Join(append(chain, name), " -> "), source)
		}
		c, found, err := l.fromProfile(source, append(chain, name))
		if err != nil {
			return Credentials{}, err
		}
		if !found {
			return Credentials{}, fmt.Errorf("profile %s: its source_profile %s has no credentials in %s or %s", name, source, l.files.credFile, l.files.cfgFile)
		}
		creds = c
	case credSource != "":
		c, err := l.fromCredentialSource(name, credSource)
		if err != nil {
			return Credentials{}, err
		}
		creds = c
	default:
		return Credentials{}, fmt.Errorf("profile %s sets role_arn without source_profile, credential_source or web_identity_token_file: nothing to assume the role with", name)
	}
	return l.assumeRole(name, p, creds)
}

// fromCredentialSource returns the credentials that a profile's
// credential_source names: Environment, EcsContainer or Ec2InstanceMetadata.
func (l *loader) fromCredentialSource(name, source string) (Credentials, error) {
	var (
		c     Credentials
		found bool
		err   error
	)
	switch source {
	case "Environment":
		c = Credentials{AccessKeyID: l.env("AWS_ACCESS_KEY_ID"), SecretAccessKey: l.env("AWS_SECRET_ACCESS_KEY"), SessionToken: l.env("AWS_SESSION_TOKEN")}
		found = c.AccessKeyID != "" && c.SecretAccessKey != ""
	case "EcsContainer":
		c, found, err = l.fromContainer()
	case "Ec2InstanceMetadata":
		c, found, err = l.fromInstance()
	default:
		return Credentials{}, fmt.Errorf("profile %s: credential_source %q is not Environment, EcsContainer or Ec2InstanceMetadata", name, source)
	}
	if err == nil && !found {
		err = fmt.Errorf("profile %s: its credential_source %s has no credentials", name, source)
	}
	return c, err
}
