package eks

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// TokenCommand is runner's hidden command that prints an EKS token as an
// ExecCredential: the exec entry of every kubeconfig of the cluster runs
// `<runner> eks-token --cluster-name NAME --region R [--profile P]`.
const TokenCommand = "eks-token"

// execAPIVersion is the client authentication API of the exec entries.
const execAPIVersion = "client.authentication.k8s.io/v1beta1"

// Access is what a kubeconfig needs to reach the cluster: where it is and
// how a client gets a token (runner's eks-token command, with the AWS
// profile when one is set).
type Access struct {
	// Name is the cluster's name; ARN its ARN, which names the kubeconfig's
	// cluster, user and context as `aws eks update-kubeconfig` does (the
	// name when the ARN is empty).
	Name, ARN string
	// Endpoint is the API server's URL; CertificateAuthority its CA
	// certificate, base64 PEM as EKS gives it.
	Endpoint, CertificateAuthority string
	// Region is the cluster's region; Profile the AWS profile ("": none).
	Region, Profile string
	// Executable is the runner binary that serves the tokens.
	Executable string
}

// Profile returns the AWS profile named by the aws:profile value v: none
// for "" and for MARA's "none".
func Profile(v string) string {
	if v == "none" {
		return ""
	}
	return v
}

// EntryName is the name of the kubeconfig's cluster, user and context.
func (a Access) EntryName() string {
	if a.ARN != "" {
		return a.ARN
	}
	return a.Name
}

// Cluster is the kubeconfig's cluster entry (the value of "cluster").
func (a Access) Cluster() map[string]any {
	return map[string]any{"server": a.Endpoint, "certificate-authority-data": a.CertificateAuthority}
}

// User is the kubeconfig's user entry (the value of "user"): an exec
// credential running runner's eks-token command.
func (a Access) User() map[string]any {
	args := []any{TokenCommand, "--cluster-name", a.Name, "--region", a.Region}
	exec := map[string]any{"apiVersion": execAPIVersion, "command": a.Executable}
	if a.Profile != "" {
		args = append(args, "--profile", a.Profile)
		exec["env"] = []any{map[string]any{"name": "AWS_PROFILE", "value": a.Profile}}
	}
	exec["args"] = args
	return map[string]any{"exec": exec}
}

// Context is the kubeconfig's context entry (the value of "context").
func (a Access) Context() map[string]any {
	return map[string]any{"cluster": a.EntryName(), "user": a.EntryName()}
}

// Kubeconfig returns a kubeconfig of this cluster alone, its context
// current.
func (a Access) Kubeconfig() (string, error) {
	if a.Name == "" || a.Endpoint == "" || a.Region == "" || a.Executable == "" {
		return "", fmt.Errorf("a kubeconfig of the EKS cluster needs its name, endpoint, region and runner's executable (have %q, %q, %q, %q)",
			a.Name, a.Endpoint, a.Region, a.Executable)
	}
	n := a.EntryName()
	doc := map[string]any{
		"apiVersion":      "v1",
		"kind":            "Config",
		"clusters":        []any{map[string]any{"name": n, "cluster": a.Cluster()}},
		"users":           []any{map[string]any{"name": n, "user": a.User()}},
		"contexts":        []any{map[string]any{"name": n, "context": a.Context()}},
		"current-context": n,
		"preferences":     map[string]any{},
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("writing the kubeconfig of EKS cluster %s: %w", a.Name, err)
	}
	return string(b), nil
}
