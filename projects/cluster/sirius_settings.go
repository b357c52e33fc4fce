package cluster

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
)

// The projects and stack outputs the sirius program reads besides the
// kubeconfig.
const (
	// SecretsProject creates one Opaque Secret per namespace group of the
	// stack's secret config, in a namespace of that group.
	SecretsProject = "secrets"
	// SecretsNamespacesOutput maps each group to its namespace.
	SecretsNamespacesOutput = "namespaces"
	// SecretsSecretsOutput maps each group to the name of its Secret.
	SecretsSecretsOutput = "secrets"
	// IngressProject is the NGINX Ingress Controller.
	IngressProject = "ingress-controller"
	// IngressClassOutput is the IngressClass the controller serves.
	IngressClassOutput = "ingress_class"
	// LBHostnameOutput is the hostname of the controller's load balancer.
	LBHostnameOutput = "lb_ingress_hostname"
	// SiriusGroup is the config namespace group of Bank of Sirius: its
	// Secret holds the keys accounts_pwd, ledger_pwd and demo_login_pwd.
	SiriusGroup = "sirius"
	// DefaultIngressClass is used when the ingress controller exports none.
	DefaultIngressClass = "nginx"
)

// siriusSettings are what the Bank of Sirius resources are made of: the
// config values and the outputs of the projects it builds on.
type siriusSettings struct {
	// namespace is the sirius group's namespace (secrets project).
	namespace engine.Output
	// groupSecret is the name of the sirius group's Secret, which holds
	// the passwords (secrets project).
	groupSecret engine.Output
	// Plain config values with MARA's defaults.
	accountsAdmin, accountsDB, ledgerAdmin, ledgerDB, demoUser engine.Output
	// accountsURI is the accounts database's URI with its password
	// (secret): the one value derived from a password.
	accountsURI engine.Output
	// ingressClass and host expose the frontend.
	ingressClass, host engine.Output
	// otlpEndpoint is the OpenTelemetry collector's OTLP/gRPC URL
	// (observability project); statsdHost the statsd exporter's
	// host:port (prometheus project).
	otlpEndpoint, statsdHost engine.Output
}

// readSiriusSettings reads the config and the upstream projects' outputs.
// The accounts password is required: the accounts services connect with
// a URI holding it.
func readSiriusSettings(ctx *engine.Context) (siriusSettings, error) {
	accountsPwd, ok := ctx.Config("sirius:accounts_pwd")
	if !ok {
		return siriusSettings{}, errors.New("the config value sirius:accounts_pwd (the Bank of Sirius accounts database password) is missing; set it with `runner config set --secret sirius:accounts_pwd`")
	}
	secrets := ctx.StackReference(SecretsProject)
	ingress := ctx.StackReference(IngressProject)
	observability := ctx.StackReference(ObservabilityProject)
	prometheus := ctx.StackReference(PrometheusProject)
	s := siriusSettings{
		otlpEndpoint: observability.Output(CollectorEndpointOutput).Apply(func(v any) (any, error) {
			return fmt.Sprintf("http://%v", v), nil
		}),
		statsdHost: engine.All(prometheus.Output(StatsdServiceOutput), prometheus.Output(NamespaceOutput)).Apply(func(v any) (any, error) {
			vals := v.([]any)
			return svcHost(fmt.Sprint(vals[0]), fmt.Sprint(vals[1])) + ":9125", nil
		}),
		namespace:     groupEntry(secrets.Output(SecretsNamespacesOutput), SecretsNamespacesOutput),
		groupSecret:   groupEntry(secrets.Output(SecretsSecretsOutput), SecretsSecretsOutput),
		accountsAdmin: configOr(ctx, "sirius:accounts_admin", "admin"),
		accountsDB:    configOr(ctx, "sirius:accounts_db", "postgresdb"),
		ledgerAdmin:   configOr(ctx, "sirius:ledger_admin", "admin"),
		ledgerDB:      configOr(ctx, "sirius:ledger_db", "postgresdb"),
		demoUser:      configOr(ctx, "sirius:demo_login_user", "testuser"),
		ingressClass: ingress.Output(IngressClassOutput).Apply(func(v any) (any, error) {
			if s, _ := v.(string); s != "" {
				return s, nil
			}
			return DefaultIngressClass, nil
		}),
	}
	hostname, _ := ctx.Config("sirius:hostname")
	s.host = siriusHost(hostname, ingress.Output(LBHostnameOutput))
	s.accountsURI = engine.All(s.accountsAdmin, accountsPwd, s.accountsDB).Apply(func(v any) (any, error) {
		vals := v.([]any)
		return resource.Secret{Element: postgresURI(fmt.Sprint(vals[0]), fmt.Sprint(vals[1]), "accounts-db:5432", fmt.Sprint(vals[2]))}, nil
	})
	return s, nil
}

// configOr returns the config value key, or def when it is unset or empty.
func configOr(ctx *engine.Context, key, def string) engine.Output {
	v, ok := ctx.Config(key)
	if !ok {
		return engine.Val(def)
	}
	return v.Apply(func(x any) (any, error) {
		if s, _ := x.(string); s != "" {
			return s, nil
		}
		return def, nil
	})
}

// groupEntry picks the sirius group's entry of a map the secrets project
// exports (output names the output, for the error).
func groupEntry(m engine.Output, output string) engine.Output {
	return m.Apply(func(v any) (any, error) {
		groups, _ := v.(map[string]any)
		if name, _ := groups[SiriusGroup].(string); name != "" {
			return name, nil
		}
		return nil, fmt.Errorf("the %s project's output %q has no entry for the %q group; set the sirius:* secret config values and deploy %s again",
			SecretsProject, output, SiriusGroup, SecretsProject)
	})
}

// siriusHost is the frontend's host name: the config value sirius:hostname
// when set (hostname, the zero Output when unset), else the hostname of the
// ingress controller's load balancer.
func siriusHost(hostname, lbHostname engine.Output) engine.Output {
	return hostname.Apply(func(v any) (any, error) {
		if h, _ := v.(string); h != "" {
			return h, nil
		}
		return lbHostname.Apply(func(lb any) (any, error) {
			if h, _ := lb.(string); h != "" {
				return h, nil
			}
			return nil, fmt.Errorf("the ingress controller's load balancer has no hostname (output %q of %s is empty); set sirius:hostname to the name that reaches it",
				LBHostnameOutput, IngressProject)
		}), nil
	})
}

// postgresURI is the URI a Bank of Anthos Python service connects to a
// database with; user and password are escaped.
func postgresURI(user, password, host, db string) string {
	u := url.URL{Scheme: "postgresql", User: url.UserPassword(user, password), Host: host, Path: "/" + db}
	return u.String()
}
