package s3

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/bucket"
)

// OpenURL is the backend.Opener of s3:// URLs: it parses the URL, loads
// credentials from the standard AWS chain and checks that the bucket can
// be listed, so that a wrong URL, an unreachable endpoint, refused
// credentials or a missing bucket are a *backend.UnavailableError (exit 3)
// before anything is written.
func OpenURL(ctx context.Context, raw string) (backend.Store, error) {
	obj, err := OpenObjects(ctx, raw)
	if err != nil {
		return nil, err
	}
	return bucket.New(obj), nil
}

// OpenObjects opens the bucket an s3:// URL names (see OpenURL).
func OpenObjects(ctx context.Context, raw string) (*Objects, error) {
	loc, err := ParseURL(raw)
	if err != nil {
		return nil, &backend.UnavailableError{URL: Redact(raw), Problem: err, Hint: "fix --backend or RUNNER_BACKEND_URL; nothing was changed"}
	}
	// The SDK's own log lines (an IMDS fallback warning) are not for users:
	// what goes wrong is in the error.
	opts := []func(*config.LoadOptions) error{config.WithLogger(logging.Nop{})}
	if loc.Region != "" {
		opts = append(opts, config.WithRegion(loc.Region))
	}
	if loc.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(loc.Profile))
	}
	if loc.Anonymous {
		opts = append(opts, config.WithCredentialsProvider(aws.AnonymousCredentials{}))
	}
	if loc.ChecksumWhenRequired {
		opts = append(opts, config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
			config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, &backend.UnavailableError{URL: loc.Redacted, Problem: fmt.Errorf("the AWS configuration cannot be loaded: %w", err),
			Hint: "check the profile named in the URL and AWS_PROFILE, AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE; nothing was changed"}
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	client := s3api.NewFromConfig(cfg, func(o *s3api.Options) {
		o.UsePathStyle = loc.PathStyle
		if loc.Endpoint != "" {
			o.BaseEndpoint = aws.String(loc.Endpoint)
		}
	})
	o := &Objects{client: client, loc: loc}
	if err := o.check(ctx); err != nil {
		return nil, err
	}
	return o, nil
}

// check lists one key of the prefix, naming what is wrong when it cannot.
func (o *Objects) check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	prefix := o.key("")
	_, err := o.client.ListObjectsV2(ctx, &s3api.ListObjectsV2Input{Bucket: &o.loc.Bucket, Prefix: &prefix, MaxKeys: aws.Int32(1)})
	if err == nil {
		return nil
	}
	var api smithy.APIError
	var netErr net.Error
	var opErr *net.OpError
	var problem error
	var hint string
	switch {
	case errors.As(err, &api) && api.ErrorCode() == "NoSuchBucket":
		problem = fmt.Errorf("the bucket %s does not exist", o.loc.Bucket)
		hint = "create it (for example `aws s3 mb s3://" + o.loc.Bucket + "`) or fix the bucket name in the URL"
	case errors.As(err, &api) && isCredentialCode(api.ErrorCode()):
		problem = fmt.Errorf("the store refused the credentials (%s)", api.ErrorCode())
		hint = "check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE or the profile in the URL, and the bucket's policy"
	case isNoCredentials(err):
		problem = fmt.Errorf("no AWS credentials were found: %w", err)
		hint = "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or log in with `aws sso login`"
	case errors.As(err, &opErr), errors.As(err, &netErr):
		problem = fmt.Errorf("the store cannot be reached: %w", err)
		hint = "check the endpoint and region in the URL and the network"
	default:
		problem = fmt.Errorf("the bucket cannot be listed: %w", err)
		hint = "check the URL, the credentials and the bucket's policy"
	}
	return &backend.UnavailableError{URL: o.loc.Redacted, Problem: problem, Hint: hint + "; nothing was changed"}
}

func isCredentialCode(code string) bool {
	switch code {
	case "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "ExpiredToken", "InvalidToken", "Forbidden", "AuthorizationHeaderMalformed":
		return true
	}
	return false
}

func isNoCredentials(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "failed to retrieve credentials") || strings.Contains(msg, "no EC2 IMDS role found")
}
