// Package cluster is the part of an infrastructure provider that every
// provider yielding a Kubernetes cluster shares: the Kubernetes projects
// (secrets, ingress controller, logging, cert-manager, monitoring,
// OpenTelemetry, Bank of Sirius), their edges and their questions. A
// provider adds its own "kubeconfig" project, which exports the cluster's
// kubeconfig and name.
package cluster

import (
	"github.com/runnerhq/runner/projects/cluster"
	"github.com/runnerhq/runner/providers"
)

// Projects returns the Kubernetes projects after kubeconfig, the provider's
// own project that exports the cluster's kubeconfig (cluster.KubeconfigProject).
func Projects(kubeconfig providers.Project) []providers.Project {
	k8s, application := providers.Kubernetes, providers.Application
	kc := cluster.KubeconfigProject
	kubeconfig.Name, kubeconfig.Category = kc, k8s
	return []providers.Project{
		kubeconfig,
		{Name: "secrets", Category: k8s, Description: "a Namespace and an Opaque Secret for each namespace group of the stack's secret config",
			DependsOn: []string{kc}, Program: providers.StaticProgram(cluster.Secrets)},
		{Name: "ingress-controller-namespace", Category: k8s, Description: "namespace of the ingress controller (nginx-ingress)",
			DependsOn: []string{kc}, Program: providers.StaticProgram(cluster.IngressNamespace)},
		{Name: "ingress-controller", Category: k8s,
			Description: "NGINX Ingress Controller (Helm) from a published image, kic:image_name (runner builds no images), behind a LoadBalancer Service",
			DependsOn:   []string{kc, "ingress-controller-namespace"}, Program: providers.StaticProgram(cluster.IngressController)},
		{Name: "logstore", Category: k8s, Description: "Elasticsearch and Kibana log store (Helm)",
			DependsOn: []string{kc}, Program: providers.StaticProgram(cluster.Logstore)},
		{Name: "logagent", Category: k8s, Description: "Filebeat log agent shipping container logs to the log store (Helm)",
			DependsOn: []string{kc, "logstore"}, Program: providers.StaticProgram(cluster.Logagent)},
		{Name: "certmgr", Category: k8s, Description: "cert-manager with its CRDs (Helm)",
			DependsOn: []string{kc}, Program: providers.StaticProgram(cluster.Certmgr)},
		{Name: "prometheus", Category: k8s, Description: "Prometheus, Grafana and the statsd exporter (Helm); Grafana's password from the secrets project",
			DependsOn: []string{kc, "secrets"}, Program: providers.StaticProgram(cluster.Prometheus)},
		// The OpenTelemetry operator's webhook certificates come from cert-manager.
		{Name: "observability", Category: k8s, Description: "OpenTelemetry operator and collector (Helm)",
			DependsOn: []string{kc, "certmgr"}, Program: providers.StaticProgram(cluster.Observability)},
		// Sirius reads its database passwords from the secrets project's
		// Secret, is exposed through the ingress controller, and sends its
		// traces to the collector and its metrics to Prometheus's statsd
		// exporter.
		{Name: "sirius", Category: application, Description: "Bank of Sirius demo application",
			DependsOn: []string{kc, "secrets", "ingress-controller", "prometheus", "observability"},
			Program:   providers.StaticProgram(cluster.Sirius)},
	}
}

// Questions are the config values the Kubernetes projects need answered.
// The secrets go into the cluster through the secrets project; the other
// settings (chart versions, kic:image_name, replicas) have defaults and are
// not asked.
func Questions() []providers.Question {
	return []providers.Question{
		{Key: "prometheus:adminpass", Message: "Password of the Grafana/Prometheus admin user", Secret: true, Validate: providers.NonEmpty,
			Help: "Grafana reads it from the Secret prometheus-secrets in namespace prometheus; it is in no Helm value"},
		{Key: "sirius:accounts_pwd", Message: "Password of the Bank of Sirius accounts database", Secret: true, Validate: providers.NonEmpty},
		{Key: "sirius:ledger_pwd", Message: "Password of the Bank of Sirius ledger database", Secret: true, Validate: providers.NonEmpty},
		{Key: "sirius:demo_login_user", Message: "User name of the Bank of Sirius demo login", Default: providers.Constant("testuser"), Validate: providers.NonEmpty},
		{Key: "sirius:demo_login_pwd", Message: "Password of the Bank of Sirius demo login", Secret: true, Validate: providers.NonEmpty},
	}
}
