package cluster

import (
	"fmt"
	"strconv"

	"github.com/runnerhq/runner/engine"
)

// The log store's project and outputs.
const (
	LogstoreProject = "logstore"
	// ElasticHostnameOutput is the cluster DNS name of Elasticsearch's
	// service (port 9200, plain HTTP).
	ElasticHostnameOutput = "elastic_hostname"
	// KibanaHostnameOutput is the cluster DNS name of Kibana (port 5601).
	KibanaHostnameOutput = "kibana_hostname"
)

// logstoreChart is Bitnami's Elasticsearch chart; helm_timeout defaults to
// 600 s, because 300 s was too short for Elasticsearch (MARA's issue #191).
var logstoreChart = chart{ns: "logstore", name: "elasticsearch", version: "21.4.1",
	repo: "oci://registry-1.docker.io/bitnamicharts", timeout: 600}

// logagentChart is Elastic's Filebeat chart.
var logagentChart = chart{ns: "logagent", name: "filebeat", version: "8.5.1", repo: "https://helm.elastic.co", timeout: 300}

// legacyImage is a Bitnami image at its new home: since August 2025
// Bitnami publishes versioned tags of its public images only under
// docker.io/bitnamilegacy, where the chart's pinned tags still resolve.
func legacyImage(name string) map[string]any {
	return map[string]any{"registry": "docker.io", "repository": "bitnamilegacy/" + name}
}

// Logstore deploys Elasticsearch (with Kibana) by Helm into namespace
// logstore, its node counts from logstore:master_replicas,
// data_replicas, ingest_replicas and coordinating_replicas (default 1
// each, as MARA's program). Its disks are off unless
// logstore:persistence is true: a cluster without a default StorageClass
// (EKS since 1.30 marks none) would leave their claims pending. Outputs:
// namespace, elastic_hostname, kibana_hostname.
func Logstore(ctx *engine.Context) error {
	replicas := map[string]int{}
	for _, role := range logstoreRoles {
		n, err := count(ctx, "logstore:"+role+"_replicas", 1, 1)
		if err != nil {
			return err
		}
		replicas[role] = n
	}
	p := Provider(ctx)
	ns := namespace(ctx, p, "logstore", nil)
	noLimits := map[string]any{"requests": map[string]any{}, "limits": map[string]any{}}
	const name = "elastic"
	persist, err := setting(ctx, "logstore:persistence", "false")
	if err != nil {
		return err
	}
	on, err := strconv.ParseBool(persist)
	if err != nil {
		return fmt.Errorf("the config value logstore:persistence is %q: it must be true or false", persist)
	}
	disk := map[string]any{"enabled": on}
	if _, err := helmRelease(ctx, p, logstoreChart, release{name: name, namespace: nameOf(ns), values: map[string]any{
		"image":             legacyImage("elasticsearch"),
		"sysctlImage":       legacyImage("os-shell"),
		"volumePermissions": map[string]any{"image": legacyImage("os-shell")},
		"master":            map[string]any{"replicaCount": replicas["master"], "resources": noLimits, "persistence": disk},
		"data":              map[string]any{"replicaCount": replicas["data"], "resources": noLimits, "persistence": disk},
		"coordinating":      map[string]any{"replicaCount": replicas["coordinating"]},
		"ingest":            map[string]any{"enabled": true, "replicaCount": replicas["ingest"], "resources": noLimits},
		"global": map[string]any{"kibanaEnabled": true,
			// The images below are Bitnami's own, moved: the chart
			// checks images it does not know unless told.
			"security": map[string]any{"allowInsecureImages": true}},
		"kibana": map[string]any{"image": legacyImage("kibana")},
	}}); err != nil {
		return err
	}
	ctx.Export(NamespaceOutput, nameOf(ns))
	ctx.Export(ElasticHostnameOutput, svcHost(name+"-elasticsearch", "logstore"))
	ctx.Export(KibanaHostnameOutput, svcHost(name+"-kibana", "logstore"))
	return nil
}

// Logagent deploys Filebeat by Helm into namespace logagent, as a
// DaemonSet shipping every container's log to the log store's
// Elasticsearch (read from the logstore project). Output: namespace.
func Logagent(ctx *engine.Context) error {
	ref := ctx.StackReference(LogstoreProject)
	config := ref.Output(ElasticHostnameOutput).Apply(func(v any) (any, error) {
		es, _ := v.(string)
		if es == "" {
			return nil, fmt.Errorf("the logstore project exports no %s; deploy logstore first", ElasticHostnameOutput)
		}
		return filebeatConfig(es), nil
	})
	p := Provider(ctx)
	ns := namespace(ctx, p, "logagent", nil)
	if _, err := helmRelease(ctx, p, logagentChart, release{name: "filebeat", namespace: nameOf(ns), values: map[string]any{
		"daemonset": map[string]any{
			"enabled": true,
			// The chart's defaults read credentials and certificates of
			// Elastic's own Elasticsearch chart; Bitnami's has neither.
			"extraEnvs":      []any{},
			"secretMounts":   []any{},
			"filebeatConfig": map[string]any{"filebeat.yml": config},
		},
	}}); err != nil {
		return err
	}
	ctx.Export(NamespaceOutput, nameOf(ns))
	return nil
}

// filebeatConfig is filebeat.yml: container logs, with Kubernetes metadata
// and hints, to Elasticsearch at host es. (MARA also loaded Kibana's
// dashboards at start, which stops Filebeat while Kibana is not up yet.)
func filebeatConfig(es string) string {
	return `filebeat.autodiscover:
  providers:
    - type: kubernetes
      node: ${NODE_NAME}
      hints.enabled: true
      hints.default_config:
        type: container
        paths:
          - /var/log/containers/*${data.kubernetes.container.id}.log
output.elasticsearch:
  hosts: ['http://` + es + `:9200']
`
}
