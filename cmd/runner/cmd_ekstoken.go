package main

import (
	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/term"
)

// eksTokenCommand prints an EKS token as an ExecCredential: the exec entry
// of the kubeconfigs that the aws provider writes runs it (kubectl, the
// kubernetes plugin), so that they need no aws CLI. Its likeness to
// serveCommand (cmd_serve.go) is the shape of a hidden urfave/cli command
// with its own flags, one file per command: there is no logic to share.
func eksTokenCommand(io *term.IO) *cli.Command {
	return &cli.Command{
		Name:   "eks-token",
		Usage:  "print a token for an EKS cluster as a Kubernetes ExecCredential (run by kubeconfig exec entries)",
		Hidden: true,
		Flags: []cli.Flag{
			// Required flags are checked by EKSToken: urfave/cli's own check
			// printed the help on stdout, where kubectl expects the
			// credential, and exited 1 instead of 2.
			&cli.StringFlag{Name: "cluster-name", Usage: "the EKS cluster's `NAME` (required)"},
			&cli.StringFlag{Name: "region", Usage: "the cluster's AWS `REGION` (required)"},
			&cli.StringFlag{Name: "profile", Usage: "the AWS `PROFILE` whose credentials sign the token (found, it wins over AWS_ACCESS_KEY_ID, as with the aws CLI)"},
		},
		Action: func(c *cli.Context) error {
			return runner.EKSToken(c.Context, io.Out, runner.EKSTokenOptions{
				ClusterName: c.String("cluster-name"), Region: c.String("region"), Profile: c.String("profile")})
		},
	}
}
