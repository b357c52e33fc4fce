// Package ingress issues the local environment's server certificate: a key
// and a certificate for 127.0.0.1 and localhost signed by the environment's
// CA (read from the ca project by stack reference), written to files for the
// application to serve. It is the analogue of MARA's ingress controller.
package ingress

import (
	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugins/tls"
	"github.com/runnerhq/runner/projects/local/localenv"
)

// Program declares the server certificate. Outputs: certFile, keyFile,
// certPem.
func Program(rt localenv.Runtime) engine.Program {
	return func(ctx *engine.Context) error {
		ca := ctx.StackReference("ca")
		network := ctx.StackReference("network")
		key := localenv.ECDSAKey(ctx, "server-key")
		csr := ctx.Resource(tls.CertRequestType, "server-csr", engine.Inputs{
			"privateKeyPem": key.Output("privateKeyPem"),
			"subject":       map[string]any{"commonName": "127.0.0.1", "organization": "runner"},
			"dnsNames":      []any{"localhost"},
			"ipAddresses":   []any{network.Output("host")},
		})
		cert := ctx.Resource(tls.LocallySignedCertType, "server-cert", engine.Inputs{
			"certRequestPem":      csr.Output("certRequestPem"),
			"caPrivateKeyPem":     ca.Output("caPrivateKeyPem"),
			"caCertPem":           ca.Output("caCertPem"),
			"validityPeriodHours": 24 * 90,
			"allowedUses":         []any{"digital_signature", "key_encipherment", "server_auth"},
		})
		certFile := localenv.File(ctx, "server-cert-file", rt.Path("ingress", "tls.crt"), cert.Output("certPem"), "0644")
		keyFile := localenv.File(ctx, "server-key-file", rt.Path("ingress", "tls.key"), key.Output("privateKeyPem"), "0600")
		ctx.Export("certFile", certFile.Output("path"))
		ctx.Export("keyFile", keyFile.Output("path"))
		ctx.Export("certPem", cert.Output("certPem"))
		return nil
	}
}
