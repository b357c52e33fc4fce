// Package ca is the local environment's certificate authority: a private key
// and a self-signed CA certificate, whose certificate is also written to a
// file so that clients (curl --cacert) can trust the environment's services.
package ca

import (
	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugins/tls"
	"github.com/runnerhq/runner/projects/local/localenv"
)

// Program declares the CA. Outputs: caCertPem, caPrivateKeyPem (secret),
// caCertFile.
func Program(rt localenv.Runtime) engine.Program {
	return func(ctx *engine.Context) error {
		key := localenv.ECDSAKey(ctx, "ca-key")
		cert := ctx.Resource(tls.SelfSignedCertType, "ca-cert", engine.Inputs{
			"privateKeyPem": key.Output("privateKeyPem"),
			"subject": map[string]any{
				"commonName":   "runner local CA (" + ctx.Stack() + ")",
				"organization": "runner",
			},
			"isCaCertificate":     true,
			"validityPeriodHours": 24 * 365,
			"allowedUses":         []any{"cert_signing", "crl_signing", "digital_signature"},
		})
		file := localenv.File(ctx, "ca-cert-file", rt.Path("ca", "ca.crt"), cert.Output("certPem"), "0644")
		ctx.Export("caCertPem", cert.Output("certPem"))
		ctx.Export("caPrivateKeyPem", key.Output("privateKeyPem"))
		ctx.Export("caCertFile", file.Output("path"))
		return nil
	}
}
