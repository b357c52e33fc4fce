package cluster

import (
	"github.com/runnerhq/runner/engine"
)

// The type tokens of the Kubernetes resources the application uses.
const (
	configMapType   = "kubernetes:core/v1:ConfigMap"
	secretType      = "kubernetes:core/v1:Secret"
	serviceType     = "kubernetes:core/v1:Service"
	deploymentType  = "kubernetes:apps/v1:Deployment"
	statefulSetType = "kubernetes:apps/v1:StatefulSet"
	ingressType     = "kubernetes:networking.k8s.io/v1:Ingress"
	privateKeyType  = "tls:index/privateKey:PrivateKey"
)

// keyMount says which halves of the JWT key pair a workload mounts.
type keyMount int

const (
	noKeys    keyMount = iota
	publicKey          // the public key, at /root/.ssh/publickey
	bothKeys           // the private key too, at /root/.ssh/privatekey
)

// workload is one Bank of Sirius container with its Service.
type workload struct {
	name      string // Deployment/StatefulSet, Service and app label
	container string // "" : name
	image     string
	port      int    // container port
	svcPort   int    // Service port (0: port)
	portName  string // the Service port's name ("": http)
	env       []any
	envFrom   []string // ConfigMaps
	keys      keyMount
	// probeDelays are the initial delays of the readiness and liveness
	// probes on /z/health (nil: no probes).
	probeDelays []int
	command     []string
}

// siriusImage is the published image of a Bank of Sirius component.
func siriusImage(component string) string {
	return "ghcr.io/nginxinc/bos-" + component + ":" + SiriusVersion
}

// SiriusVersion is the Bank of Sirius release whose images are deployed.
const SiriusVersion = "v1.3.0"

// meta is the metadata of a namespaced resource.
func meta(name string, namespace engine.Output, labels map[string]any) map[string]any {
	m := map[string]any{"name": name, "namespace": namespace}
	if labels != nil {
		m["labels"] = labels
	}
	return m
}

// plainEnv is an environment variable of a literal value.
func plainEnv(name string, value any) map[string]any {
	return map[string]any{"name": name, "value": value}
}

// secretEnv is an environment variable read from key of the Secret named
// secret (a name or an Output of one).
func secretEnv(name string, secret any, key string) map[string]any {
	return map[string]any{"name": name, "valueFrom": map[string]any{
		"secretKeyRef": map[string]any{"name": secret, "key": key},
	}}
}

// configEnv is an environment variable read from key of a ConfigMap.
func configEnv(name, configMap, key string) map[string]any {
	return map[string]any{"name": name, "valueFrom": map[string]any{
		"configMapKeyRef": map[string]any{"name": configMap, "key": key},
	}}
}

// fieldEnv is an environment variable of a field of the pod.
func fieldEnv(name, path string) map[string]any {
	return map[string]any{"name": name, "valueFrom": map[string]any{
		"fieldRef": map[string]any{"fieldPath": path},
	}}
}

// container is the workload's container.
func (w workload) podContainer() map[string]any {
	name := w.container
	if name == "" {
		name = w.name
	}
	c := map[string]any{
		"name":            name,
		"image":           w.image,
		"imagePullPolicy": "IfNotPresent",
		"ports":           []any{map[string]any{"containerPort": w.port}},
	}
	if len(w.env) > 0 {
		c["env"] = w.env
	}
	if len(w.envFrom) > 0 {
		from := make([]any, len(w.envFrom))
		for i, cm := range w.envFrom {
			from[i] = map[string]any{"configMapRef": map[string]any{"name": cm}}
		}
		c["envFrom"] = from
	}
	if w.keys != noKeys {
		c["volumeMounts"] = []any{map[string]any{"name": "keys", "mountPath": "/root/.ssh", "readOnly": true}}
	}
	if len(w.probeDelays) == 2 {
		c["readinessProbe"] = probe("/z/health/readiness", w.port, w.probeDelays[0])
		c["livenessProbe"] = probe("/z/health/liveness", w.port, w.probeDelays[1])
	}
	if len(w.command) > 0 {
		c["command"] = w.command
	}
	return c
}

// probe is an HTTP probe of path.
func probe(path string, port, delay int) map[string]any {
	return map[string]any{
		"httpGet":             map[string]any{"path": path, "port": port},
		"initialDelaySeconds": delay, "periodSeconds": 5, "timeoutSeconds": 10,
	}
}

// podTemplate is the workload's pod template.
func (w workload) podTemplate() map[string]any {
	spec := map[string]any{
		"serviceAccountName":            "default",
		"terminationGracePeriodSeconds": 5,
		"containers":                    []any{w.podContainer()},
	}
	switch w.keys {
	case publicKey:
		spec["volumes"] = []any{jwtVolume(map[string]any{"key": jwtPublicKey, "path": "publickey"})}
	case bothKeys:
		spec["volumes"] = []any{jwtVolume(
			map[string]any{"key": jwtPrivateKey, "path": "privatekey"},
			map[string]any{"key": jwtPublicKey, "path": "publickey"})}
	}
	return map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app": w.name}},
		"spec":     spec,
	}
}

// jwtVolume mounts the given items of the JWT key Secret.
func jwtVolume(items ...any) map[string]any {
	return map[string]any{"name": "keys", "secret": map[string]any{"secretName": jwtSecretName, "items": items}}
}

// declare declares the workload (a StatefulSet for the databases, a
// Deployment otherwise) and its ClusterIP Service.
func (w workload) declare(ctx *engine.Context, ns engine.Output, stateful bool, opts ...engine.ResourceOption) {
	labels := map[string]any{"app": w.name}
	spec := map[string]any{
		"replicas": 1,
		"selector": map[string]any{"matchLabels": labels},
		"template": w.podTemplate(),
	}
	typ, apiVersion, kind := deploymentType, "apps/v1", "Deployment"
	if stateful {
		typ, kind = statefulSetType, "StatefulSet"
		spec["serviceName"] = w.name
		// The databases keep their data in the pod, as MARA's did: a new
		// pod starts from the demo data again.
		t := spec["template"].(map[string]any)["spec"].(map[string]any)
		t["volumes"] = []any{map[string]any{"name": "postgresdb", "emptyDir": map[string]any{}}}
		c := t["containers"].([]any)[0].(map[string]any)
		c["volumeMounts"] = []any{map[string]any{"name": "postgresdb", "mountPath": "/var/lib/postgresql/data", "subPath": "postgres"}}
	}
	ctx.Resource(typ, w.name, engine.Inputs{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": meta(w.name, ns, labels),
		"spec":     spec,
	}, opts...)
	port, portName := w.svcPort, w.portName
	if port == 0 {
		port = w.port
	}
	if portName == "" {
		portName = "http"
	}
	ctx.Resource(serviceType, w.name, engine.Inputs{
		"apiVersion": "v1", "kind": "Service",
		"metadata": meta(w.name, ns, labels),
		"spec": map[string]any{
			"type":     "ClusterIP",
			"selector": labels,
			"ports": []any{map[string]any{
				"name": portName, "port": port, "targetPort": w.port, "protocol": "TCP",
			}},
		},
	}, opts...)
}

// configMap declares a ConfigMap named name holding data.
func configMap(ctx *engine.Context, name string, ns engine.Output, data map[string]any, opts ...engine.ResourceOption) *engine.Resource {
	return ctx.Resource(configMapType, name, engine.Inputs{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": meta(name, ns, nil),
		"data":     data,
	}, opts...)
}
