package cluster

import "github.com/runnerhq/runner/engine"

// The OpenTelemetry project and outputs.
const (
	ObservabilityProject = "observability"
	// CollectorServiceOutput is the collector's service.
	CollectorServiceOutput = "collector_service"
	// CollectorEndpointOutput is the collector's OTLP gRPC endpoint
	// (host:4317), what OTEL_EXPORTER_OTLP_ENDPOINT takes with http://.
	CollectorEndpointOutput = "collector_endpoint"
	// CollectorHTTPEndpointOutput is its OTLP HTTP endpoint (http://host:4318).
	CollectorHTTPEndpointOutput = "collector_http_endpoint"
)

// The OpenTelemetry charts (MARA applied the operator's manifests; these
// keys are runner's, in MARA's style).
var (
	otelOperatorChart = chart{ns: "observability", nameKey: "operator_chart_name", versionKey: "operator_chart_version",
		name: "opentelemetry-operator", version: "0.119.0",
		repo: "https://open-telemetry.github.io/opentelemetry-helm-charts", timeout: 300}
	otelCollectorChart = chart{ns: "observability", nameKey: "collector_chart_name", versionKey: "collector_chart_version",
		name: "opentelemetry-collector", version: "0.140.0",
		repo: "https://open-telemetry.github.io/opentelemetry-helm-charts", timeout: 300}
)

// collectorImage is the collector image the charts need named.
const collectorImage = "otel/opentelemetry-collector-k8s"

// Observability deploys the OpenTelemetry operator (its webhook
// certificates from cert-manager once the certmgr project installed its
// CRDs) and a collector (a Deployment receiving OTLP) by Helm into
// namespace observability. Outputs: namespace, collector_service,
// collector_endpoint, collector_http_endpoint.
func Observability(ctx *engine.Context) error {
	crds := ctx.StackReference(CertmgrProject).Output(CRDsInstalledOutput).Apply(func(v any) (any, error) {
		b, _ := v.(bool)
		return b, nil
	})
	notCRDs := crds.Apply(func(v any) (any, error) { return !v.(bool), nil })
	p := Provider(ctx)
	ns := namespace(ctx, p, "observability", nil)
	if _, err := helmRelease(ctx, p, otelOperatorChart, release{name: "otel-operator", namespace: nameOf(ns), values: map[string]any{
		"manager": map[string]any{"collectorImage": map[string]any{"repository": collectorImage}},
		"admissionWebhooks": map[string]any{
			"certManager":      map[string]any{"enabled": crds},
			"autoGenerateCert": map[string]any{"enabled": notCRDs},
		},
	}}); err != nil {
		return err
	}
	const service = "otel-collector"
	if _, err := helmRelease(ctx, p, otelCollectorChart, release{name: service, namespace: nameOf(ns), values: map[string]any{
		"mode":             "deployment",
		"fullnameOverride": service,
		"image":            map[string]any{"repository": collectorImage},
	}}); err != nil {
		return err
	}
	host := svcHost(service, "observability")
	ctx.Export(NamespaceOutput, nameOf(ns))
	ctx.Export(CollectorServiceOutput, service)
	ctx.Export(CollectorEndpointOutput, host+":4317")
	ctx.Export(CollectorHTTPEndpointOutput, "http://"+host+":4318")
	return nil
}
