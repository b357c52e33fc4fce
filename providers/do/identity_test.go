package do

import (
	"errors"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

func TestIdentity(t *testing.T) {
	for _, c := range []struct {
		typ    string
		inputs resource.PropertyMap
		id     string
	}{
		{registryType, resource.PropertyMap{"name": "mara-dev"}, "mara-dev"},
		{credentialsType, resource.PropertyMap{"registryName": "mara-dev"}, "mara-dev"},
		{credentialsType, resource.PropertyMap{"registryName": resource.Computed{}}, ""},
		{clusterType, resource.PropertyMap{"name": "mara-dev"}, ""}, // the cloud names it: lookup
		{dnsRecordType, resource.PropertyMap{"name": "mara"}, ""},
	} {
		id, ok := identity(c.typ, c.inputs)
		if id != c.id || ok != (c.id != "") {
			t.Errorf("identity(%s, %v) = %q, %v; want %q", c.typ, c.inputs, id, ok, c.id)
		}
	}
}

func TestLookup(t *testing.T) {
	l, ok := lookup(clusterType, resource.PropertyMap{"name": "mara-dev", "region": "sfo3"})
	if !ok || l.Token != "digitalocean:index/getKubernetesCluster:getKubernetesCluster" || l.Args["name"] != "mara-dev" || len(l.Args) != 1 {
		t.Fatalf("the cluster's lookup is %+v, %v", l, ok)
	}
	if !l.Absent(errors.New("rpc error: code = Unknown desc = Unable to find cluster with name: mara-dev")) || l.Absent(errors.New("401 Unauthorized")) {
		t.Error("the cluster's lookup does not tell the provider's not-found error from others")
	}
	if id, err := l.Found(resource.PropertyMap{"id": "0b5e-uuid", "name": "mara-dev", "region": "sfo3"}); id != "0b5e-uuid" || err != nil {
		t.Errorf("Found = %q, %v", id, err)
	}
	if _, err := l.Found(resource.PropertyMap{"id": "0b5e-uuid", "name": "mara-dev", "region": "nyc1"}); err == nil ||
		!strings.Contains(err.Error(), "the DOKS cluster mara-dev exists in region nyc1, not sfo3") {
		t.Errorf("a cluster of that name in another region is adopted: %v", err)
	}
	rec := resource.PropertyMap{"domain": "example.com", "name": "mara", "type": "A", "value": "203.0.113.7", "ttl": 1800.0}
	l, ok = lookup(dnsRecordType, rec)
	if !ok || l.Token != "digitalocean:index/getRecords:getRecords" || l.Args["domain"] != "example.com" || len(l.Args["filters"].([]any)) != 3 || l.Absent != nil {
		t.Fatalf("the DNS record's lookup is %+v, %v", l, ok)
	}
	delete(rec, "value")
	if _, ok := lookup(dnsRecordType, rec); ok {
		t.Error("a DNS record with no known value is looked up (it could match another record)")
	}
	if _, ok := lookup(clusterType, resource.PropertyMap{"name": resource.Computed{}}); ok {
		t.Error("a cluster with an unknown name is looked up")
	}
}
