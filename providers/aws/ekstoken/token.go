// Package ekstoken makes the bearer tokens that an EKS cluster accepts, as
// `aws eks get-token` does: a token is "k8s-aws-v1." and the unpadded
// base64url of an STS GetCallerIdentity URL presigned (AWS Signature
// Version 4) with the cluster's name in the signed header x-k8s-aws-id.
// The cluster's authenticator calls that URL to learn who the caller is.
// Credentials come from aws-sdk-go-v2's config loader and the URL from its
// STS presign client; runner's hidden `eks-token` command prints the token
// as the ExecCredential a kubeconfig's exec entry expects.
package ekstoken

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Prefix starts every EKS token.
const Prefix = "k8s-aws-v1."

// ExecAPIVersion is the client authentication API of the ExecCredential
// printed and of the kubeconfig exec entries that run it.
const ExecAPIVersion = "client.authentication.k8s.io/v1beta1"

// ClusterHeader is the signed header that names the cluster a token is for.
const ClusterHeader = "x-k8s-aws-id"

// urlExpiry is the X-Amz-Expires of the presigned URL, as `aws eks
// get-token` signs it.
const urlExpiry = 60 * time.Second

// lifetime is how long EKS accepts a token (15 minutes from its signing
// time, whatever X-Amz-Expires says); the credential expires a minute
// earlier so that clients fetch a new one in time.
const lifetime = 14 * time.Minute

// Token returns the bearer token for cluster, signed with creds for the
// STS endpoint of region at time now. The endpoint is STS's own in the
// region's partition (sts.REGION.amazonaws.com, .com.cn in China) even
// when AWS_ENDPOINT_URL_STS points elsewhere: EKS calls only that host.
func Token(ctx context.Context, cluster, region string, creds aws.Credentials, now time.Time) (string, error) {
	if err := CheckTarget(cluster, region); err != nil {
		return "", err
	}
	client := sts.New(sts.Options{Region: region, Credentials: aws.CredentialsProviderFunc(
		func(context.Context) (aws.Credentials, error) { return creds, nil })})
	presigner := sts.NewPresignClient(client, func(o *sts.PresignOptions) {
		o.Presigner = signer{v4.NewSigner(), now}
	})
	req, err := presigner.PresignGetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}, func(o *sts.PresignOptions) {
		o.ClientOptions = append(o.ClientOptions, func(o *sts.Options) {
			o.APIOptions = append(o.APIOptions, smithyhttp.SetHeaderValue(ClusterHeader, cluster))
		})
	})
	if err != nil {
		return "", fmt.Errorf("signing the STS GetCallerIdentity URL of the token: %w", err)
	}
	return Prefix + base64.RawURLEncoding.EncodeToString([]byte(req.URL)), nil
}

// signer presigns at a given time with the token's expiry: the SDK's
// presign client signs at the clock's time and sets no X-Amz-Expires.
type signer struct {
	v4  *v4.Signer
	now time.Time
}

// PresignHTTP implements sts.HTTPPresignerV4.
func (s signer) PresignHTTP(ctx context.Context, creds aws.Credentials, r *http.Request, payloadHash, service, region string,
	_ time.Time, optFns ...func(*v4.SignerOptions)) (string, http.Header, error) {
	q := r.URL.Query()
	q.Set("X-Amz-Expires", fmt.Sprint(int(urlExpiry/time.Second)))
	r.URL.RawQuery = q.Encode()
	return s.v4.PresignHTTP(ctx, creds, r, payloadHash, service, region, s.now, optFns...)
}

// regionName is the form of an AWS region (us-west-1, cn-north-1,
// us-gov-west-1): it becomes part of the STS host name.
var regionName = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)

// CheckTarget checks the cluster's name and region a token is for.
func CheckTarget(cluster, region string) error {
	switch {
	case cluster == "":
		return fmt.Errorf("an EKS token needs the cluster's name (--cluster-name)")
	case region == "":
		return fmt.Errorf("an EKS token needs the cluster's region (--region)")
	case !regionName.MatchString(region):
		return fmt.Errorf("--region %q is not an AWS region such as us-west-1", region)
	}
	return nil
}

// execCredential is the client.authentication.k8s.io ExecCredential.
type execCredential struct {
	Kind       string         `json:"kind"`
	APIVersion string         `json:"apiVersion"`
	Spec       map[string]any `json:"spec"`
	Status     struct {
		ExpirationTimestamp string `json:"expirationTimestamp"`
		Token               string `json:"token"`
	} `json:"status"`
}

// ExecCredential returns the JSON document a kubeconfig exec entry prints:
// an ExecCredential holding token, expiring before EKS stops accepting it.
func ExecCredential(token string, now time.Time) ([]byte, error) {
	c := execCredential{Kind: "ExecCredential", APIVersion: ExecAPIVersion, Spec: map[string]any{}}
	c.Status.Token = token
	c.Status.ExpirationTimestamp = now.UTC().Add(lifetime).Format(time.RFC3339)
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
