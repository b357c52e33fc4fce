// Package ekstoken makes the bearer tokens that an EKS cluster accepts, as
// `aws eks get-token` does, without the aws CLI or an AWS SDK: a token is
// "k8s-aws-v1." and the unpadded base64url of an STS GetCallerIdentity URL
// presigned with AWS Signature Version 4, with the cluster's name in the
// signed header x-k8s-aws-id. The cluster's authenticator calls that URL
// to learn who the caller is. runner's hidden `eks-token` command prints
// one as the ExecCredential a kubeconfig's exec entry expects.
package ekstoken

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Prefix starts every EKS token.
const Prefix = "k8s-aws-v1."

// ExecAPIVersion is the client authentication API of the ExecCredential
// printed and of the kubeconfig exec entries that run it.
const ExecAPIVersion = "client.authentication.k8s.io/v1beta1"

// lifetime is how long EKS accepts a token (15 minutes from its signing
// time, whatever X-Amz-Expires says); the credential expires a minute
// earlier so that clients fetch a new one in time.
const lifetime = 14 * time.Minute

// Token returns the bearer token for cluster, signed with creds for the
// STS endpoint of region at time now.
func Token(cluster, region string, creds Credentials, now time.Time) (string, error) {
	if err := CheckTarget(cluster, region); err != nil {
		return "", err
	}
	u := presign{
		Method: "GET", Host: "sts." + region + "." + DNSSuffix(region), Path: "/",
		Query:   url.Values{"Action": {"GetCallerIdentity"}, "Version": {"2011-06-15"}},
		Headers: map[string]string{"x-k8s-aws-id": cluster},
		Region:  region, Service: "sts", Time: now, Expires: 60 * time.Second,
		PayloadHash: emptyPayload, Creds: creds,
	}.URL()
	return Prefix + base64.RawURLEncoding.EncodeToString([]byte(u)), nil
}

// DNSSuffix is the domain of AWS's endpoints in region: amazonaws.com.cn
// in China (cn-north-1, cn-northwest-1), else amazonaws.com.
func DNSSuffix(region string) string {
	if strings.HasPrefix(region, "cn-") {
		return "amazonaws.com.cn"
	}
	return "amazonaws.com"
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
