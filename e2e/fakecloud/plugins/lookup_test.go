package plugins

import (
	"context"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
)

// TestInvokeFindsByName: the fake digitalocean and linode plugins' data
// sources find a made resource by its name, answer none (or the real
// provider's error) when it is not there, and refuse arguments the real
// functions do not take.
func TestInvokeFindsByName(t *testing.T) {
	cleanEnv(t)
	ctx := context.Background()
	do, err := configure(t, "digitalocean", map[string]string{"token": "dop_v1_abc"})
	if err != nil {
		t.Fatal(err)
	}
	lin, err := configure(t, "linode", map[string]string{"token": "linode-token-0123456789abcdef"})
	if err != nil {
		t.Fatal(err)
	}
	s := resource.NewStringProperty
	list := func(vs ...string) resource.PropertyValue {
		var out []resource.PropertyValue
		for _, v := range vs {
			out = append(out, s(v))
		}
		return resource.NewArrayProperty(out)
	}
	filter := func(keyName, key, value string) resource.PropertyValue {
		return resource.NewArrayProperty([]resource.PropertyValue{resource.NewObjectProperty(resource.PropertyMap{
			resource.PropertyKey(keyName): s(key), "values": list(value)})})
	}
	invoke := func(p *provider, tok string, args resource.PropertyMap) (resource.PropertyMap, error) {
		r, err := p.Invoke(ctx, plugin.InvokeRequest{Tok: "x", Args: args})
		if err == nil {
			t.Fatalf("an unknown function answered %v", r)
		}
		resp, err := p.Invoke(ctx, plugin.InvokeRequest{Tok: tokenOf(tok), Args: args})
		return resp.Properties, err
	}
	const getCluster, getRecords, getLKE = "digitalocean:index/getKubernetesCluster:getKubernetesCluster",
		"digitalocean:index/getRecords:getRecords", "linode:index/getLkeClusters:getLkeClusters"

	if _, err := invoke(do, getCluster, resource.PropertyMap{"name": s("mara-dev")}); err == nil || !strings.Contains(err.Error(), "Unable to find cluster with name: mara-dev") {
		t.Errorf("getKubernetesCluster of no cluster: %v", err)
	}
	_, made := checkCreate(t, do, "digitalocean:index/kubernetesCluster:KubernetesCluster", "cluster", resource.PropertyMap{
		"name": s("mara-dev"), "region": s("sfo3"), "version": s("1.34.1-do.0"),
		"nodePool": resource.NewObjectProperty(resource.PropertyMap{"name": s("default"), "size": s("s-4vcpu-8gb"), "nodeCount": resource.NewNumberProperty(3)}),
	}, false)
	got, err := invoke(do, getCluster, resource.PropertyMap{"name": s("mara-dev")})
	if err != nil || got["id"].StringValue() != string(made.ID) {
		t.Errorf("getKubernetesCluster = %v, %v; want the ID %s", got["id"], err, made.ID)
	}

	args := resource.PropertyMap{"domain": s("example.com"), "filters": filter("key", "name", "mara")}
	if got, err := invoke(do, getRecords, args); err != nil || len(got["records"].ArrayValue()) != 0 {
		t.Errorf("getRecords of no record = %v, %v", got, err)
	}
	_, rec := checkCreate(t, do, "digitalocean:index/dnsRecord:DnsRecord", "ingress", resource.PropertyMap{
		"domain": s("example.com"), "name": s("mara"), "type": s("A"), "value": s("203.0.113.7")}, false)
	got, err = invoke(do, getRecords, args)
	if err != nil || len(got["records"].ArrayValue()) != 1 || got["records"].ArrayValue()[0].ObjectValue()["id"].NumberValue() == 0 {
		t.Errorf("getRecords = %v, %v; want the record %s", got, err, rec.ID)
	}
	if got, _ := invoke(do, getRecords, resource.PropertyMap{"domain": s("example.org"), "filters": filter("key", "name", "mara")}); len(got["records"].ArrayValue()) != 0 {
		t.Errorf("getRecords of another domain found %v", got)
	}
	for _, bad := range []resource.PropertyMap{
		{"filters": filter("key", "name", "mara")},                              // no domain
		{"domain": s("example.com"), "filters": filter("name", "name", "mara")}, // linode's filter shape
		{"domain": s("example.com"), "filters": filter("key", "data", "x")},     // not filterable
		{"domain": s("example.com"), "name": s("mara")},                         // not an argument
	} {
		if _, err := invoke(do, getRecords, bad); err == nil {
			t.Errorf("getRecords took %v", bad)
		}
	}

	_, lke := checkCreate(t, lin, "linode:index/lkeCluster:LkeCluster", "cluster", resource.PropertyMap{
		"label": s("mara-dev"), "region": s("us-central"), "k8sVersion": s("1.34"),
		"pools": resource.NewArrayProperty([]resource.PropertyValue{resource.NewObjectProperty(resource.PropertyMap{"type": s("g6-standard-8"), "count": resource.NewNumberProperty(3)})}),
	}, false)
	got, err = invoke(lin, getLKE, resource.PropertyMap{"filters": filter("name", "label", "mara-dev")})
	if err != nil || len(got["lkeClusters"].ArrayValue()) != 1 {
		t.Fatalf("getLkeClusters = %v, %v; want the cluster %s", got, err, lke.ID)
	}
	if got, _ := invoke(lin, getLKE, resource.PropertyMap{"filters": filter("name", "label", "mara-prod")}); len(got["lkeClusters"].ArrayValue()) != 0 {
		t.Errorf("getLkeClusters of another label found %v", got)
	}
	if _, err := invoke(lin, getLKE, resource.PropertyMap{"filters": filter("key", "label", "mara-dev")}); err == nil {
		t.Error("getLkeClusters took digitalocean's filter shape")
	}
	if _, err := invoke(do, getLKE, resource.PropertyMap{}); err == nil {
		t.Error("the digitalocean plugin answered a linode function")
	}
}

func tokenOf(s string) tokens.ModuleMember { return tokens.ModuleMember(s) }
