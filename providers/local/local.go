// Package local is the embedded default provider: a reference environment
// shaped like MARA's, made only of real local things (no network beyond
// 127.0.0.1, no credentials): a certificate authority, generated secrets, a
// port, a server certificate signed by the CA, and an HTTPS application
// served by the runner binary itself.
package local

import (
	"context"
	"fmt"
	"strconv"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/projects/local/app"
	"github.com/runnerhq/runner/projects/local/ca"
	"github.com/runnerhq/runner/projects/local/ingress"
	"github.com/runnerhq/runner/projects/local/localenv"
	"github.com/runnerhq/runner/projects/local/network"
	"github.com/runnerhq/runner/projects/local/secrets"
	"github.com/runnerhq/runner/providers"
)

// Name is the provider's name.
const Name = "local"

// New returns the local provider.
func New() *providers.Provider {
	return &providers.Provider{
		Name:        Name,
		Description: "a local reference environment: CA, secrets, port, TLS ingress and an HTTPS app on 127.0.0.1 (no cloud account)",
		Projects: []providers.Project{
			{Name: "ca", Category: providers.Infrastructure,
				Description: "the environment's own certificate authority",
				Program:     program(ca.Program)},
			{Name: "secrets", Category: providers.Infrastructure,
				Description: "generated secrets: password salt and session key",
				Program:     program(secrets.Program)},
			{Name: "network", Category: providers.Infrastructure,
				Description: "where the environment listens: 127.0.0.1 and a port kept across runs",
				Program:     program(network.Program)},
			{Name: "ingress", Category: providers.Kubernetes,
				Description: "server certificate for 127.0.0.1 signed by the CA",
				DependsOn:   []string{"ca", "network"},
				Program:     program(ingress.Program)},
			{Name: "app", Category: providers.Application,
				Description: "HTTPS service with a basic-auth admin path",
				DependsOn:   []string{"ingress", "secrets", "network"},
				Program:     program(app.Program),
				OnSuccess:   checkApp},
		},
		Questions: []providers.Question{
			{Key: "app:adminPassword", Message: "Password of the application's admin user",
				Help:   "HTTP basic auth password of https://127.0.0.1:PORT/admin (user admin); at least 8 characters",
				Secret: true, Validate: minLength(8)},
			{Key: "app:port", Message: "TCP port of the application (empty: pick a free one at first deploy)",
				Optional: true, Validate: port},
		},
	}
}

// program adapts a local project's program to the provider's runtime.
func program(p func(localenv.Runtime) engine.Program) func(providers.Runtime) engine.Program {
	return func(rt providers.Runtime) engine.Program { return p(env(rt)) }
}

func env(rt providers.Runtime) localenv.Runtime {
	return localenv.Runtime{Workspace: rt.Workspace, DataDir: rt.DataDir, Executable: rt.Executable, Stack: rt.Stack}
}

// checkApp is the app project's on_success hook: the service must answer
// 200 on / over HTTPS with the certificate the ingress project issued,
// which chains to the environment's CA.
func checkApp(ctx context.Context, in providers.HookInput) error {
	url, _ := in.Outputs.String("url", "")
	if url == "" {
		return fmt.Errorf("the app project exported no url")
	}
	caFile := env(in.Runtime).Path("ca", "ca.crt")
	if err := app.Check(ctx, url, caFile, env(in.Runtime).Path("ingress", "tls.crt")); err != nil {
		// up without --refresh trusts the state: a service stopped behind
		// runner's back shows up only here.
		return fmt.Errorf("%w; if the service was stopped, run `%s` so that runner notices, then `%s` starts it again (or run `%s`)",
			err, in.Runtime.Command("refresh --yes"), in.Runtime.Command("up --yes"), in.Runtime.Command("up --refresh --yes"))
	}
	fmt.Fprintf(in.Log, "The application answers at %s\n", url)
	fmt.Fprintf(in.Log, "  try: curl --cacert %s %s\n", caFile, url)
	fmt.Fprintf(in.Log, "  admin: curl --cacert %s -u %s %sadmin\n", caFile, app.AdminUser, url)
	return nil
}

func minLength(n int) func(string) error {
	return func(v string) error {
		if len(v) < n {
			return fmt.Errorf("must be at least %d characters long", n)
		}
		return nil
	}
}

func port(v string) error {
	if v == "" {
		return nil
	}
	p, err := strconv.Atoi(v)
	if err != nil || p < 1024 || p > 65535 {
		return fmt.Errorf("must be a port number between 1024 and 65535, not %q", v)
	}
	return nil
}
