package cluster

import "github.com/runnerhq/runner/engine"

// The monitoring project and outputs.
const (
	PrometheusProject = "prometheus"
	// PrometheusServiceOutput is the Prometheus server's service (port 9090).
	PrometheusServiceOutput = "prometheus_service"
	// PromHostnameOutput is its cluster DNS name.
	PromHostnameOutput = "prom_hostname"
	// GrafanaServiceOutput is Grafana's service (port 80).
	GrafanaServiceOutput = "grafana_service"
	// StatsdServiceOutput is the statsd exporter's service (statsd on UDP
	// 9125, metrics on 9102).
	StatsdServiceOutput = "statsd_service"
)

// prometheusChart is kube-prometheus-stack; its helm_timeout defaults to
// 600 s as in MARA's program.
var prometheusChart = chart{ns: "prometheus", name: "kube-prometheus-stack", version: "79.5.0",
	repo: "https://prometheus-community.github.io/helm-charts", timeout: 600}

// statsdChart is the statsd exporter, from the same repository.
var statsdChart = chart{ns: "prometheus", nameKey: "statsd_chart_name", versionKey: "statsd_chart_version",
	name: "prometheus-statsd-exporter", version: "0.15.0",
	repo: "https://prometheus-community.github.io/helm-charts", timeout: 600}

// Prometheus deploys kube-prometheus-stack and the statsd exporter by Helm
// into the namespace the secrets project made for the prometheus group.
// Grafana's admin password is prometheus:adminpass, read by Grafana from
// that project's Secret (grafana.admin.existingSecret), so it is in no
// Helm value; the admin user is prometheus:adminuser (default admin).
// Outputs: namespace, prometheus_service, prom_hostname, grafana_service,
// statsd_service.
func Prometheus(ctx *engine.Context) error {
	user, err := setting(ctx, "prometheus:adminuser", "admin")
	if err != nil {
		return err
	}
	ns, secret := secretsOf(ctx, "prometheus", "prometheus:adminpass")
	p := Provider(ctx)
	const name = "prometheus"
	rel, err := helmRelease(ctx, p, prometheusChart, release{name: name, namespace: ns, values: map[string]any{
		"prometheus": map[string]any{"prometheusSpec": map[string]any{
			// Watch the ServiceMonitors and PodMonitors of every release.
			"podMonitorSelectorNilUsesHelmValues":     false,
			"serviceMonitorSelectorNilUsesHelmValues": false,
			"ruleSelectorNilUsesHelmValues":           false,
		}},
		"grafana": map[string]any{
			"admin": map[string]any{"existingSecret": secret, "passwordKey": "adminpass"},
			// The Secret holds no user name: the chart takes it from env.
			"env": map[string]any{"GF_SECURITY_ADMIN_USER": user},
		},
	}})
	if err != nil {
		return err
	}
	if _, err := helmRelease(ctx, p, statsdChart, release{name: "statsd", namespace: ns, values: map[string]any{
		"serviceMonitor": map[string]any{"enabled": true},
	}}, engine.DependsOn(rel)); err != nil {
		return err
	}
	// kube-prometheus-stack names its objects <release>-kube-prometheus
	// (its full name is cut to 26 characters).
	const promService = name + "-kube-prometheus-prometheus"
	ctx.Export(NamespaceOutput, ns)
	ctx.Export(PrometheusServiceOutput, promService)
	ctx.Export(PromHostnameOutput, ns.Apply(func(v any) (any, error) { return svcHost(promService, v.(string)), nil }))
	ctx.Export(GrafanaServiceOutput, name+"-grafana")
	ctx.Export(StatsdServiceOutput, "statsd-prometheus-statsd-exporter")
	return nil
}
