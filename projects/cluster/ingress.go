package cluster

import (
	"fmt"
	"strings"

	"github.com/runnerhq/runner/engine"
)

// The ingress controller's projects and outputs (besides IngressProject,
// IngressClassOutput and LBHostnameOutput of sirius_settings.go: the
// host name under which the controller is reached, kic-helm:fqdn when set,
// else the load balancer's host name, "" when it has only an IP address).
const (
	IngressNamespaceProject = "ingress-controller-namespace"
	// IngressNamespaceName is the controller's namespace.
	IngressNamespaceName = "nginx-ingress"
	// NamespaceOutput is the namespace a layer deployed into (every layer).
	NamespaceOutput = "namespace"
	// LBIPOutput is the load balancer's IP address ("" when it has none).
	LBIPOutput = "lb_ingress_ip"
	// IngressClass is the controller's IngressClass name (the chart's).
	IngressClass = "nginx"
)

// kicChart is NGINX Ingress Controller's chart (config namespace kic-helm).
var kicChart = chart{ns: "kic-helm", name: "nginx-ingress", version: "2.5.1", repo: "https://helm.nginx.com/stable", timeout: 300}

// kicImage is the controller image without kic:image_name: MARA's public
// image, at the tag the chart was released with.
const kicImage = "nginx/nginx-ingress"

// kicPodLabel selects the controller's pods for the load balancer Service,
// whatever labels the chart's version gives them.
var kicPodLabel = map[string]any{"app.runner.dev/ingress": "kic"}

// IngressNamespace declares the ingress controller's namespace, labelled
// for Prometheus to scrape as MARA did. Output: namespace.
func IngressNamespace(ctx *engine.Context) error {
	p := Provider(ctx)
	ns := namespace(ctx, p, IngressNamespaceName, map[string]any{"prometheus": "scrape"})
	ctx.Export(NamespaceOutput, nameOf(ns))
	return nil
}

// image is a container image reference split the way Helm charts take it.
type image struct {
	repository, tag, digest string
}

// splitImage splits an image reference ([registry[:port]/]path[:tag][@digest]).
func splitImage(ref string) (image, error) {
	var im image
	rest := strings.TrimSpace(ref)
	if i := strings.Index(rest, "@"); i >= 0 {
		rest, im.digest = rest[:i], rest[i+1:]
		if !strings.Contains(im.digest, ":") {
			return image{}, fmt.Errorf("the image %q has a digest %q that is not algorithm:hex", ref, im.digest)
		}
	}
	if i := strings.LastIndex(rest, ":"); i > strings.LastIndex(rest, "/") {
		rest, im.tag = rest[:i], rest[i+1:]
		if im.tag == "" {
			return image{}, fmt.Errorf("the image %q ends in ':' without a tag", ref)
		}
	}
	if rest == "" || strings.ContainsAny(rest, " \t") || strings.HasSuffix(rest, "/") {
		return image{}, fmt.Errorf("%q is not an image reference such as nginx/nginx-ingress:5.0.0", ref)
	}
	im.repository = rest
	return im, nil
}

// imageValues returns the chart's controller.image values for kic:image_name
// (unset: MARA's public image at the chart's own tag).
func imageValues(ctx *engine.Context) (map[string]any, error) {
	ref, err := setting(ctx, "kic:image_name", "")
	if err != nil || ref == "" {
		return map[string]any{"repository": kicImage}, err
	}
	im, err := splitImage(ref)
	if err != nil {
		return nil, fmt.Errorf("the config value kic:image_name: %w", err)
	}
	v := map[string]any{"repository": im.repository}
	if im.tag != "" {
		v["tag"] = im.tag
	}
	if im.digest != "" {
		v["digest"] = im.digest
	}
	return v, nil
}

// IngressController deploys NGINX Ingress Controller by Helm into the
// namespace of the ingress-controller-namespace project, from a published
// image (runner builds none), and exposes it through a LoadBalancer Service
// of its own (the chart's is off), whose status gives the address.
// Outputs: namespace, release, service, ingress_class, lb_ingress_hostname,
// lb_ingress_ip.
func IngressController(ctx *engine.Context) error { return ingressController(ctx, nil) }

// IngressControllerPulling is IngressController for a provider with a
// container registry whose credentials the project credentials puts into
// the controller's namespace (its output secret, the Secret's name): the
// controller's service account pulls its image with them, as MARA's did
// (controller.serviceAccount.imagePullSecretName), so that kic:image_name
// may name an image of that registry.
func IngressControllerPulling(credentials string) engine.Program {
	return func(ctx *engine.Context) error {
		return ingressController(ctx, ctx.StackReference(credentials).Output(PullSecretOutput))
	}
}

// PullSecretOutput is the output of a registry credentials project that
// names its Secret (of type kubernetes.io/dockerconfigjson).
const PullSecretOutput = "secret"

// ingressController is IngressController, the controller's service
// account pulling with the Secret pullSecret names (nil: none).
func ingressController(ctx *engine.Context, pullSecret any) error {
	img, err := imageValues(ctx)
	if err != nil {
		return err
	}
	fqdn, err := setting(ctx, "kic-helm:fqdn", "")
	if err != nil {
		return err
	}
	p := Provider(ctx)
	ns := ctx.StackReference(IngressNamespaceProject).Output(NamespaceOutput)
	const name = "kic"
	annotations := map[string]any{"co.elastic.logs/module": "nginx"}
	controller := map[string]any{
		"image":        img,
		"healthStatus": true,
		"service":      map[string]any{"create": false},
		"pod":          map[string]any{"annotations": annotations, "extraLabels": kicPodLabel},
		// Ingresses get the load balancer's address from our Service
		// (the chart's is off): without it no Ingress ever has one,
		// and Pulumi's kubernetes plugin waits for it (sirius's).
		"reportIngressStatus": map[string]any{"externalService": "kic-nginx-ingress"},
	}
	if pullSecret != nil {
		controller["serviceAccount"] = map[string]any{"imagePullSecretName": pullSecret}
	}
	rel, err := helmRelease(ctx, p, kicChart, release{name: name, namespace: ns, values: map[string]any{
		"controller": controller,
		"prometheus": map[string]any{"create": true, "port": 9113},
	}})
	if err != nil {
		return err
	}
	port := func(name string, n int) map[string]any {
		return map[string]any{"name": name, "port": n, "targetPort": n, "protocol": "TCP"}
	}
	svc := ctx.Resource(serviceType, "kic-nginx-ingress", engine.Inputs{
		"metadata": map[string]any{"name": "kic-nginx-ingress", "namespace": ns, "annotations": annotations},
		"spec": map[string]any{
			"type":     "LoadBalancer",
			"selector": kicPodLabel,
			"ports":    []any{port("http", 80), port("https", 443)},
		},
	}, engine.Provider(p), engine.DependsOn(rel))
	status := svc.Output("status")
	ctx.Export(NamespaceOutput, ns)
	ctx.Export("release", name)
	ctx.Export("service", "kic-nginx-ingress")
	ctx.Export(IngressClassOutput, IngressClass)
	ctx.Export(LBHostnameOutput, status.Apply(func(v any) (any, error) {
		if fqdn != "" {
			return fqdn, nil
		}
		return lbIngress(v, "hostname"), nil
	}))
	ctx.Export(LBIPOutput, status.Apply(func(v any) (any, error) { return lbIngress(v, "ip"), nil }))
	return nil
}

// lbIngress reads status.loadBalancer.ingress[0].<field> of a Service
// ("" when it is not there).
func lbIngress(status any, field string) string {
	s, _ := status.(map[string]any)
	lb, _ := s["loadBalancer"].(map[string]any)
	list, _ := lb["ingress"].([]any)
	if len(list) == 0 {
		return ""
	}
	first, _ := list[0].(map[string]any)
	v, _ := first[field].(string)
	return v
}
