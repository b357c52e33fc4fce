package runner

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/runnerhq/runner/providers/aws/ekstoken"
)

// EKSTokenOptions are the flags of the hidden `runner eks-token` command,
// which the exec entry of an EKS cluster's kubeconfig runs.
type EKSTokenOptions struct {
	ClusterName, Region, Profile string
	// Now is the signing time (nil: time.Now).
	Now func() time.Time
}

// EKSToken prints an ExecCredential holding a token for the EKS cluster,
// signed with the AWS credentials of the environment or of the profile
// (keys, an assumed role, SSO, credential_process; see
// ekstoken.Credentials). Missing, unusable or expired credentials are a
// validation error (exit 3).
func EKSToken(ctx context.Context, w io.Writer, o EKSTokenOptions) error {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	if err := ekstoken.CheckTarget(o.ClusterName, o.Region); err != nil {
		return Usage(fmt.Errorf("%w (see `runner eks-token --help`)", err))
	}
	t := now()
	creds, err := ekstoken.Credentials(ctx, o.Profile, o.Region, t)
	if err != nil {
		return Invalid(fmt.Errorf("a token for EKS cluster %s: %w", o.ClusterName, err))
	}
	token, err := ekstoken.Token(ctx, o.ClusterName, o.Region, creds, t)
	if err != nil {
		return err
	}
	doc, err := ekstoken.ExecCredential(token, t)
	if err != nil {
		return err
	}
	_, err = w.Write(doc)
	return err
}
