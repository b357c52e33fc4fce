package ekstoken

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/processcreds"
	"github.com/aws/aws-sdk-go-v2/credentials/ssocreds"
	"github.com/aws/smithy-go"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// retrieveTimeout bounds the search for credentials. The SDK gives a
// credential_process a minute and then kills its shell, but waits on for
// the output of any child the shell left behind (a tool that forks a
// helper, "tool; sleep"), and kubectl would wait forever; its credentials
// cache returns when the context ends.
const retrieveTimeout = 70 * time.Second

// Credentials returns the keys to sign a token for a cluster in region
// with, found by aws-sdk-go-v2's config loader as the aws CLI finds them:
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), or
// AWS_ROLE_ARN with AWS_WEB_IDENTITY_TOKEN_FILE; else profile (empty:
// $AWS_PROFILE, else "default") of the shared credentials and config files
// (keys, an assumed role, SSO, credential_process); else the container's
// or the EC2 instance's role. A profile given by name (--profile, which
// the eks hook's kubeconfig passes when aws:profile is set) is used as
// `aws --profile` uses it: the token must be the identity that made the
// cluster, so the environment's keys never stand in for it.
//
// Every refusal is a sentence naming the profile and what to do, and none
// quotes a secret or what a credential_process printed.
func Credentials(ctx context.Context, profile, region string, now time.Time) (aws.Credentials, error) {
	opts := []func(*config.LoadOptions) error{config.WithRegion(region)}
	if profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(profile))
	}
	src := source{profile: profile, explicit: profile != ""}
	if !src.explicit {
		src.profile = firstOf(os.Getenv("AWS_PROFILE"), "default")
	}
	if err := checkSharedFiles(); err != nil {
		return aws.Credentials{}, err
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, retrieveTimeout)
	defer cancel()
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Credentials{}, src.explain(err, nil)
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil && errors.Is(parent.Err(), context.Canceled) { // Ctrl-C: exit 130, whatever the provider made of it
		return aws.Credentials{}, fmt.Errorf("finding the AWS credentials of %s: %w", src.name(), parent.Err())
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return aws.Credentials{}, fmt.Errorf("finding the AWS credentials of %s did not finish in time (a credential_process, SSO or STS that does not answer): %w", src.name(), err)
	}
	if err != nil {
		return aws.Credentials{}, src.explain(err, cfg.Credentials)
	}
	if creds.CanExpire && !now.Before(creds.Expires) {
		return aws.Credentials{}, fmt.Errorf("the credentials of %s expired at %s: renew them (log in again, or fix the tool that gives them)",
			src.name(), creds.Expires.UTC().Format(time.RFC3339))
	}
	return creds, nil
}

// source is where credentials were looked for: the profile, and whether
// it was given by name.
type source struct {
	profile  string
	explicit bool
}

func (s source) name() string { return "profile " + s.profile }

// sharedPaths are the shared credentials and config files the SDK reads.
func sharedPaths() (creds, cfg string) {
	return firstOf(os.Getenv("AWS_SHARED_CREDENTIALS_FILE"), config.DefaultSharedCredentialsFilename()),
		firstOf(os.Getenv("AWS_CONFIG_FILE"), config.DefaultSharedConfigFilename())
}

// sharedFiles names the shared credentials and config files.
func sharedFiles() string {
	creds, cfg := sharedPaths()
	return creds + " or " + cfg
}

// checkSharedFiles refuses shared files that the SDK would read without a
// bound: a FIFO or device (it would wait or read forever), or one over
// boundedfile's limit. Missing files are the SDK's to judge.
func checkSharedFiles() error {
	creds, cfg := sharedPaths()
	for _, path := range []string{creds, cfg} {
		f, err := boundedfile.Open(path, boundedfile.AWSShared)
		if boundedfile.IsRefused(err) {
			return err
		}
		if err == nil {
			f.Close()
		}
	}
	return nil
}

// explain turns the SDK's error into a sentence naming the profile and
// what to do. p is the provider that failed (nil: loading the
// configuration failed).
func (s source) explain(err error, p aws.CredentialsProvider) error {
	var (
		notFound  config.SharedConfigProfileNotExistError
		mfa       config.AssumeRoleTokenProviderNotSetError
		ssoLogin  *ssocreds.InvalidTokenError
		process   *processcreds.ProviderError
		assume    config.SharedConfigAssumeRoleError
		op        *smithy.OperationError
		resp      *awshttp.ResponseError
		login     = fmt.Sprintf("run `aws sso login --profile %s`", s.profile)
		onlyIMDS  = p != nil && slices.Equal(sources(p), []aws.CredentialSource{aws.CredentialSourceIMDS})
		processed = "credential_process of " + s.name()
	)
	switch {
	case errors.As(err, &notFound) && notFound.Profile != s.profile:
		return fmt.Errorf("%s: its source_profile %s could not be found in %s; add it or name another one", s.name(), notFound.Profile, sharedFiles())
	case errors.As(err, &notFound):
		return fmt.Errorf("the config profile (%s) could not be found in %s; add it (`aws configure --profile %s`) or name another one", notFound.Profile, sharedFiles(), notFound.Profile)
	case strings.Contains(err.Error(), "partial credentials found"):
		return fmt.Errorf("%s sets only one of aws_access_key_id and aws_secret_access_key in %s; set both", s.name(), sharedFiles())
	case errors.As(err, &mfa):
		return fmt.Errorf("%s assumes a role with mfa_serial: runner's EKS token helper cannot ask for an MFA code; use credential_process (a tool that asks for it), SSO, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN of a session made beforehand", s.name())
	case errors.Is(err, fs.ErrNotExist) && fromSSO(p):
		return fmt.Errorf("%s has no cached SSO login: %s", s.name(), login)
	case errors.As(err, &ssoLogin), fromSSO(p) && strings.Contains(err.Error(), "refresh cached SSO token failed"):
		return fmt.Errorf("the SSO login of %s is missing or expired: %s", s.name(), login)
	case errors.As(err, &op) && op.ServiceID == "SSO" && errors.As(err, &resp) && (resp.HTTPStatusCode() == 401 || resp.HTTPStatusCode() == 403):
		return fmt.Errorf("the SSO portal refused the cached login of %s (status %d): %s", s.name(), resp.HTTPStatusCode(), login)
	case errors.As(err, &assume):
		return fmt.Errorf("%s: role %s cannot be assumed as configured: its source_profile chain loops or ends in a profile without credentials; check source_profile in %s", s.name(), assume.RoleARN, sharedFiles())
	case errors.As(err, &process) && strings.Contains(process.Error(), "parse failed of process output"):
		// The SDK's message quotes the output, which holds secrets.
		return fmt.Errorf("%s printed no JSON object; it must print {\"Version\": 1, \"AccessKeyId\": ..., \"SecretAccessKey\": ...}", processed)
	case errors.As(err, &process):
		return fmt.Errorf("%s failed (its error output is above): %w", processed, err)
	case slices.Contains(sources(p), aws.CredentialSourceHTTP):
		return fmt.Errorf("the container credentials endpoint gave no credentials (AWS_CONTAINER_CREDENTIALS_FULL_URI or AWS_CONTAINER_CREDENTIALS_RELATIVE_URI, with AWS_CONTAINER_AUTHORIZATION_TOKEN or its _FILE): %w", oneLine{err})
	case onlyIMDS && s.explicit:
		return fmt.Errorf("%s has no credentials in %s (keys, a role, SSO or credential_process), and the environment's keys are not used for a profile given by name, as with `aws --profile`", s.name(), sharedFiles())
	case onlyIMDS:
		return fmt.Errorf("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give %s credentials in %s (keys, a role, SSO or credential_process)", s.name(), sharedFiles())
	}
	return fmt.Errorf("finding the AWS credentials of %s: %w", s.name(), oneLine{err})
}

// oneLine is an error of the SDK with its line breaks and runs of blanks
// made single spaces.
type oneLine struct{ err error }

func (e oneLine) Error() string { return strings.Join(strings.Fields(e.err.Error()), " ") }
func (e oneLine) Unwrap() error { return e.err }

// fromSSO says whether p's credentials come from an SSO login.
func fromSSO(p aws.CredentialsProvider) bool {
	return slices.ContainsFunc(sources(p), func(s aws.CredentialSource) bool {
		return s == aws.CredentialSourceSSO || s == aws.CredentialSourceProfileSSO ||
			s == aws.CredentialSourceSSOLegacy || s == aws.CredentialSourceProfileSSOLegacy
	})
}

// sources are where p's credentials come from, as the SDK records them.
func sources(p aws.CredentialsProvider) []aws.CredentialSource {
	if s, ok := p.(interface{ ProviderSources() []aws.CredentialSource }); ok {
		return s.ProviderSources()
	}
	return nil
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
