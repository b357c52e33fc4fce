package plugins

import (
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// outputs computes the kubernetes outputs: metadata with its namespace,
// uid, resourceVersion and creationTimestamp; the status of a Namespace,
// a Service (a LoadBalancer gets an ELB host name on EKS, else an IP address) and a Helm release.
func (c *kubeCloud) outputs(typ string, g *gen, inputs, outs resource.PropertyMap) {
	s := resource.NewStringProperty
	obj := func(m resource.PropertyMap) resource.PropertyValue { return resource.NewObjectProperty(m) }
	name, ns := c.nameAndNamespace(typ, inputs)
	if typ == releaseType {
		outs["namespace"] = s(ns)
		revision := resource.NewNumberProperty(1)
		if old := Plain(g.keep("status.revision", func() resource.PropertyValue { return resource.NewNullProperty() })); old.IsNumber() && g.olds != nil {
			revision = resource.NewNumberProperty(old.NumberValue() + 1)
		}
		outs["status"] = obj(resource.PropertyMap{
			"name": inputs["name"], "namespace": s(ns), "chart": inputs["chart"], "version": inputs["version"],
			"status": s("deployed"), "revision": revision,
		})
		return
	}
	if meta := inputs["metadata"]; meta.IsObject() || meta.IsNull() {
		m := resource.PropertyMap{}
		if meta.IsObject() {
			m = meta.ObjectValue().Copy()
		}
		if ns != "" {
			m["namespace"] = s(ns)
		}
		if name != "" {
			m["name"] = s(name)
		}
		m["uid"] = g.keep("metadata.uid", newUID)
		m["creationTimestamp"] = g.keep("metadata.creationTimestamp", now)
		m["resourceVersion"] = g.keep("metadata.resourceVersion", func() resource.PropertyValue { return s(randDigits()) })
		outs["metadata"] = obj(m)
	}
	switch kind(typ) {
	case "Namespace":
		outs["status"] = obj(resource.PropertyMap{"phase": s("Active")})
	case "Service":
		outs["status"] = obj(resource.PropertyMap{"loadBalancer": obj(resource.PropertyMap{})})
		if spec := Plain(inputs["spec"]); spec.IsObject() && Plain(spec.ObjectValue()["type"]).DeepEquals(s("LoadBalancer")) {
			host := g.keep("status.loadBalancer.ingress", func() resource.PropertyValue {
				if !c.onEKS() { // DigitalOcean's load balancers have an IP address; Linode's a host name too
					ip := randomIP("143")
					lb := resource.PropertyMap{"ip": s(ip)}
					if c.onLKE() {
						lb["hostname"] = s(strings.ReplaceAll(ip, ".", "-") + ".ip.linodeusercontent.com")
					}
					return resource.NewArrayProperty([]resource.PropertyValue{obj(lb)})
				}
				h := randHex(32) + "-" + randHex(10) + ".elb." + c.region() + ".amazonaws.com"
				return resource.NewArrayProperty([]resource.PropertyValue{obj(resource.PropertyMap{"hostname": s(h)})})
			})
			outs["status"] = obj(resource.PropertyMap{"loadBalancer": obj(resource.PropertyMap{"ingress": host})})
		}
	}
}

// randDigits returns a resourceVersion-like decimal string.
func randDigits() string {
	const digits = "0123456789"
	b := []byte(randHex(8))
	for i := range b {
		b[i] = digits[b[i]%10]
	}
	if b[0] == '0' {
		b[0] = '1'
	}
	return string(b)
}
