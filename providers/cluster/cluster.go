// Package cluster is the part of an infrastructure provider that every
// provider yielding a Kubernetes cluster shares: the Kubernetes projects
// (secrets, ingress controller, logging, cert-manager, monitoring,
// OpenTelemetry, Bank of Sirius), their edges and their questions. A
// provider adds its own "kubeconfig" project, which exports the cluster's
// kubeconfig and name.
package cluster

import (
	"errors"
	"strings"

	"github.com/runnerhq/runner/engine"
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
			DependsOn: []string{kc}, Program: static(cluster.Secrets)},
		{Name: "ingress-controller-namespace", Category: k8s, Description: "namespace of the ingress controller (nginx-ingress)",
			DependsOn: []string{kc}, Program: static(cluster.IngressNamespace)},
		{Name: "ingress-controller", Category: k8s,
			Description: "NGINX Ingress Controller (Helm) from a published image, kic:image_name (runner builds no images), behind a LoadBalancer Service",
			DependsOn:   []string{kc, "ingress-controller-namespace"}, Program: static(cluster.IngressController)},
		{Name: "logstore", Category: k8s, Description: "Elasticsearch and Kibana log store (Helm)",
			DependsOn: []string{kc}, Program: static(cluster.Logstore)},
		{Name: "logagent", Category: k8s, Description: "Filebeat log agent shipping container logs to the log store (Helm)",
			DependsOn: []string{kc, "logstore"}, Program: static(cluster.Logagent)},
		{Name: "certmgr", Category: k8s, Description: "cert-manager with its CRDs (Helm)",
			DependsOn: []string{kc}, Program: static(cluster.Certmgr)},
		{Name: "prometheus", Category: k8s, Description: "Prometheus, Grafana and the statsd exporter (Helm); Grafana's password from the secrets project",
			DependsOn: []string{kc, "secrets"}, Program: static(cluster.Prometheus)},
		// The OpenTelemetry operator's webhook certificates come from cert-manager.
		{Name: "observability", Category: k8s, Description: "OpenTelemetry operator and collector (Helm)",
			DependsOn: []string{kc, "certmgr"}, Program: static(cluster.Observability)},
		// Sirius reads its database passwords from the secrets project's
		// Secret, is exposed through the ingress controller, and sends its
		// traces to the collector and its metrics to Prometheus's statsd
		// exporter.
		{Name: "sirius", Category: application, Description: "Bank of Sirius demo application",
			DependsOn: []string{kc, "secrets", "ingress-controller", "prometheus", "observability"},
			Program:   static(cluster.Sirius)},
	}
}

// Questions are the config values the Kubernetes projects need answered.
// The secrets go into the cluster through the secrets project; the other
// settings (chart versions, kic:image_name, replicas) have defaults and are
// not asked.
func Questions() []providers.Question {
	return []providers.Question{
		{Key: "prometheus:adminpass", Message: "Password of the Grafana/Prometheus admin user", Secret: true, Validate: nonEmpty,
			Help: "Grafana reads it from the Secret prometheus-secrets in namespace prometheus; it is in no Helm value"},
		{Key: "sirius:accounts_pwd", Message: "Password of the Bank of Sirius accounts database", Secret: true, Validate: nonEmpty},
		{Key: "sirius:ledger_pwd", Message: "Password of the Bank of Sirius ledger database", Secret: true, Validate: nonEmpty},
		{Key: "sirius:demo_login_user", Message: "User name of the Bank of Sirius demo login", Default: constant("testuser"), Validate: nonEmpty},
		{Key: "sirius:demo_login_pwd", Message: "Password of the Bank of Sirius demo login", Secret: true, Validate: nonEmpty},
	}
}

// static adapts a program that needs nothing of the run.
func static(p engine.Program) func(providers.Runtime) engine.Program {
	return func(providers.Runtime) engine.Program { return p }
}

func constant(v string) func(func(string) string) string {
	return func(func(string) string) string { return v }
}

func nonEmpty(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("must not be empty")
	}
	return nil
}
