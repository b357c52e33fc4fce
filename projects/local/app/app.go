// Package app is the local environment's application: the runner binary
// itself, started as a detached HTTPS service on 127.0.0.1 with the ingress
// certificate, whose /admin path asks for basic auth with the secret config
// value app:adminPassword. It is the analogue of MARA's application.
package app

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugins/process"
	"github.com/runnerhq/runner/projects/local/localenv"
	"github.com/runnerhq/runner/projects/local/service"
)

// AdminUser is the user name of the admin path.
const AdminUser = "admin"

// Program declares the service. Outputs: url, adminUser, pid.
func Program(rt localenv.Runtime) engine.Program {
	return func(ctx *engine.Context) error {
		password, ok := ctx.Config("app:adminPassword")
		if !ok {
			return errors.New("the config value app:adminPassword is missing; set it with `runner config set --secret app:adminPassword`")
		}
		ingress := ctx.StackReference("ingress")
		secrets := ctx.StackReference("secrets")
		network := ctx.StackReference("network")

		// The admin password's digest, derived from a secret, has a file of
		// its own that the service reads at each login: the configuration
		// file holds no secret, so its hash, which restarts the service
		// when it changes, is no secret either and may go in the
		// service's environment.
		digestPath := rt.Path("app", "admin.sha256")
		digest := engine.All(secrets.Output("passwordSalt"), password).Apply(func(v any) (any, error) {
			vals := v.([]any)
			salt, _ := vals[0].(string)
			pass, _ := vals[1].(string)
			return service.PasswordDigest(salt, pass) + "\n", nil
		})
		digestFile := localenv.File(ctx, "admin-password-digest", digestPath, digest, "0600")
		config := engine.All(
			network.Output("host"), network.Output("port"),
			ingress.Output("certFile"), ingress.Output("keyFile"),
			secrets.Output("passwordSalt"), digestFile.Output("path"),
		).Apply(func(v any) (any, error) {
			vals := v.([]any)
			port, ok := vals[1].(float64)
			if !ok {
				return nil, fmt.Errorf("the network project's port output is %v, not a number", vals[1])
			}
			salt, _ := vals[4].(string)
			c := service.Config{
				Stack:             ctx.Stack(),
				Listen:            net.JoinHostPort(fmt.Sprint(vals[0]), fmt.Sprint(int(port))),
				CertFile:          fmt.Sprint(vals[2]),
				KeyFile:           fmt.Sprint(vals[3]),
				AdminUser:         AdminUser,
				AdminPasswordSalt: salt,
				AdminPasswordFile: fmt.Sprint(vals[5]),
			}
			b, err := json.MarshalIndent(c, "", "  ")
			if err != nil {
				return nil, err
			}
			return string(b) + "\n", nil
		})
		file := localenv.File(ctx, "service-config", rt.Path("app", "service.json"), config, "0600")
		listen := engine.All(network.Output("host"), network.Output("port")).Apply(func(v any) (any, error) {
			vals := v.([]any)
			return net.JoinHostPort(fmt.Sprint(vals[0]), fmt.Sprint(int(vals[1].(float64)))), nil
		})
		proc := ctx.Resource(process.Type, "service", engine.Inputs{
			"command": []any{rt.Executable, "serve-local", "--workspace", rt.Workspace, "--config", file.Output("path")},
			// A new configuration restarts the service.
			"environment": map[string]any{"RUNNER_SERVICE_CONFIG_SHA256": file.Output("sha256")},
			"dir":         rt.Workspace,
			"pidFile":     rt.Path("app", "service.pid"),
			"logFile":     rt.Path("app", "service.log"),
			"readyTcp":    listen,
		})
		ctx.Export("url", network.Output("url"))
		ctx.Export("adminUser", AdminUser)
		ctx.Export("pid", proc.Output("pid"))
		return nil
	}
}

// Check asks url for / over HTTPS, trusting only the CA certificate in
// caFile, and fails unless it answers 200 with the very certificate in
// certFile (the one the ingress project issued): another server, even one
// with a certificate of the same CA, is not this environment's service. It
// is the app project's on_success hook.
func Check(ctx context.Context, url, caFile, certFile string) error {
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		return fmt.Errorf("reading the environment's CA certificate: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return fmt.Errorf("%s holds no PEM certificate", caFile)
	}
	want, err := firstCertificate(certFile)
	if err != nil {
		return err
	}
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("the application at %s does not answer: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.TLS == nil || len(resp.TLS.PeerCertificates) == 0 || !bytes.Equal(resp.TLS.PeerCertificates[0].Raw, want) {
		return fmt.Errorf("the server at %s is not this environment's service: it does not present the certificate in %s", url, certFile)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the application at %s answered %s, not 200 OK", url, resp.Status)
	}
	return nil
}

// firstCertificate returns the DER bytes of the first certificate in a PEM file.
func firstCertificate(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the service certificate: %w", err)
	}
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, fmt.Errorf("%s holds no PEM certificate", path)
		}
		if block.Type == "CERTIFICATE" {
			return block.Bytes, nil
		}
	}
}
