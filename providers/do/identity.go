package do

import (
	"strings"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
)

// The resource types of the do projects whose interrupted creates are
// found again (see identity and lookup).
const (
	registryType    = "digitalocean:index/containerRegistry:ContainerRegistry"
	credentialsType = "digitalocean:index/containerRegistryDockerCredentials:ContainerRegistryDockerCredentials"
	clusterType     = "digitalocean:index/kubernetesCluster:KubernetesCluster"
	dnsRecordType   = "digitalocean:index/dnsRecord:DnsRecord"
)

// identity is the digitalocean plugin's rule for the resources named by
// their inputs: a container registry's ID is its name (an account has
// one), its Docker credentials' the registry's name.
func identity(typ string, inputs resource.PropertyMap) (string, bool) {
	var id string
	switch typ {
	case registryType:
		id = providers.Plain(inputs, "name")
	case credentialsType:
		id = providers.Plain(inputs, "registryName")
	}
	return id, id != ""
}

// lookup finds the resources whose ID DigitalOcean assigns by what the
// programs named them, through the plugin's own functions: a DOKS cluster
// by its name (unique in an account; getKubernetesCluster fails when there
// is none), refused when it is in another region (it is then not the one
// this create made, and adopting it would replace it), a DNS record by its domain, name, type and value
// (getRecords: a record of the same four is the same record).
func lookup(typ string, inputs resource.PropertyMap) (resource.Lookup, bool) {
	str := func(k string) string { return providers.Plain(inputs, k) }
	switch typ {
	case clusterType:
		if str("name") == "" {
			return resource.Lookup{}, false
		}
		return resource.Lookup{
			Token: "digitalocean:index/getKubernetesCluster:getKubernetesCluster",
			Args:  resource.PropertyMap{"name": str("name")},
			Found: func(r resource.PropertyMap) (string, error) {
				id, _ := providers.IDText(r["id"])
				return id, providers.SameRegion(r, str("region"), "the DOKS cluster "+str("name"))
			},
			Absent: func(err error) bool {
				msg := err.Error()
				return strings.Contains(msg, "Unable to find cluster with name") || strings.Contains(msg, "No clusters found")
			},
		}, true
	case dnsRecordType:
		if str("domain") == "" || str("name") == "" || str("type") == "" || str("value") == "" {
			return resource.Lookup{}, false
		}
		filter := func(k string) any { return map[string]any{"key": k, "values": []any{str(k)}} }
		return resource.Lookup{
			Token: "digitalocean:index/getRecords:getRecords",
			Args:  resource.PropertyMap{"domain": str("domain"), "filters": []any{filter("name"), filter("type"), filter("value")}},
			Found: func(r resource.PropertyMap) (string, error) { return providers.OneID(r, "records", "DNS records") },
		}, true
	}
	return resource.Lookup{}, false
}
