package main

import (
	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/term"
)

// eksTokenCommand prints an EKS token as an ExecCredential: the exec entry
// of the kubeconfigs that the aws provider writes runs it (kubectl, the
// kubernetes plugin), so that they need no aws CLI.
func eksTokenCommand(io *term.IO) *cli.Command {
	return &cli.Command{
		Name:   "eks-token",
		Usage:  "print a token for an EKS cluster as a Kubernetes ExecCredential (run by kubeconfig exec entries)",
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "cluster-name", Required: true, Usage: "the EKS cluster's `NAME`"},
			&cli.StringFlag{Name: "region", Required: true, Usage: "the cluster's AWS `REGION`"},
			&cli.StringFlag{Name: "profile", Usage: "the AWS `PROFILE` whose static keys sign the token, when AWS_ACCESS_KEY_ID is not set"},
		},
		Action: func(c *cli.Context) error {
			return runner.EKSToken(io.Out, runner.EKSTokenOptions{
				ClusterName: c.String("cluster-name"), Region: c.String("region"), Profile: c.String("profile")})
		},
	}
}
