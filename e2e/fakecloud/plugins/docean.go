package plugins

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
)

// doForceNew are inputs whose change replaces a digitalocean resource.
var doForceNew = map[string]map[resource.PropertyKey]bool{
	"digitalocean:index/kubernetesCluster:KubernetesCluster":                                   {"name": true, "region": true, "vpcUuid": true},
	"digitalocean:index/containerRegistry:ContainerRegistry":                                   {"name": true, "region": true},
	"digitalocean:index/dnsRecord:DnsRecord":                                                   {"domain": true, "type": true},
	"digitalocean:index/containerRegistryDockerCredentials:ContainerRegistryDockerCredentials": {"registryName": true},
}

// tokenCloud is what the digitalocean and linode fakes share: an API token
// from the provider's configuration or its environment variable.
type tokenCloud struct {
	contract *Contract
	env      string // the token's environment variable
}

func (c *tokenCloud) configKeys() []string {
	keys := make([]string, 0, len(c.contract.Config))
	for k := range c.contract.Config {
		keys = append(keys, k)
	}
	return keys
}

// token returns the configured token, else the environment's.
func (c *tokenCloud) token(cfg config) (string, error) {
	tok := firstOf(cfg["token"], os.Getenv(c.env))
	if tok == "" {
		return "", fmt.Errorf("the %s provider has no API token: set %s or %s:token", c.contract.Package, c.env, c.contract.Package)
	}
	if strings.ContainsAny(tok, " \t\r\n") {
		return "", errors.New("the API token holds white space, which no HTTP header can carry")
	}
	return tok, nil
}

func (c *tokenCloud) checkConfig(cfg config) []plugin.CheckFailure {
	_, err := c.token(cfg)
	return failure(err)
}

func (c *tokenCloud) configure(cfg config) error {
	_, err := c.token(cfg)
	return err
}

func (c *tokenCloud) fill(string, plugin.CheckRequest, resource.PropertyMap) {}

func (c *tokenCloud) beforeDelete(*store, *Record, resource.PropertyMap) error { return nil }

// doCloud is the fake digitalocean provider.
type doCloud struct{ tokenCloud }

func (c *doCloud) newID(typ string, inputs resource.PropertyMap) string {
	str := func(k resource.PropertyKey) string {
		if v := Plain(inputs[k]); v.IsString() {
			return v.StringValue()
		}
		return ""
	}
	switch typ {
	case "digitalocean:index/containerRegistry:ContainerRegistry":
		return str("name")
	case "digitalocean:index/containerRegistryDockerCredentials:ContainerRegistryDockerCredentials":
		return str("registryName")
	case "digitalocean:index/dnsRecord:DnsRecord":
		return fmt.Sprint(100000000 + time.Now().UnixNano()%900000000)
	}
	return uuid.NewString()
}

// The registry types of the fake digitalocean cloud.
const (
	doRegistryType    = "digitalocean:index/containerRegistry:ContainerRegistry"
	doCredentialsType = "digitalocean:index/containerRegistryDockerCredentials:ContainerRegistryDockerCredentials"
)

// doMaxRegistries is how many registries an account on the professional
// tier may have; on the others it has one.
const doMaxRegistries = 10

// limit refuses a container registry the account has no room for, as
// DigitalOcean does: an account has one registry, and up to ten when its
// subscription (one for the account) is professional.
func (c *doCloud) limit(s *store, typ string, inputs resource.PropertyMap) error {
	if typ != doRegistryType {
		return nil
	}
	all, err := s.all()
	if err != nil {
		return err
	}
	var names []string
	professional := true
	for _, r := range all {
		if r.Type == doRegistryType {
			names = append(names, r.ID)
			professional = professional && r.Inputs["subscriptionTierSlug"] == "professional"
		}
	}
	tier := Plain(inputs["subscriptionTierSlug"])
	switch {
	case len(names) == 0:
		return nil
	case professional && tier.IsString() && tier.StringValue() == "professional" && len(names) < doMaxRegistries:
		return nil
	}
	return fmt.Errorf("Error creating container registry: POST https://api.digitalocean.com/v2/registry: 409 this account already has a container registry (%s); an account has one (up to %d on the professional tier)",
		strings.Join(names, ", "), doMaxRegistries)
}

// sharedID: registry credentials are named by their registry, and every
// create makes new ones (two stacks may hold credentials of one registry).
func (c *doCloud) sharedID(typ string) bool { return typ == doCredentialsType }

// fill autonames a container registry without a name, as the real plugin
// does (the name is then kept on every later check): registry names are
// unique across all of DigitalOcean, so a fixed one could be taken.
func (c *doCloud) fill(typ string, req plugin.CheckRequest, news resource.PropertyMap) {
	if typ == "digitalocean:index/containerRegistry:ContainerRegistry" && news["name"].IsNull() {
		news["name"] = autoname(req, req.Olds["name"])
	}
}

func (c *doCloud) replaces(typ string, key resource.PropertyKey, _, _ resource.PropertyMap) bool {
	return doForceNew[typ][key]
}

// outputs computes what DigitalOcean's API returns: the DOKS cluster's
// endpoint and kubeConfigs (rawConfig, as doctl saves it), the registry's
// endpoint, Docker credentials and a DNS record's fqdn.
func (c *doCloud) outputs(typ string, g *gen, inputs, outs resource.PropertyMap) {
	s := resource.NewStringProperty
	str := func(k resource.PropertyKey) string {
		if v := Plain(inputs[k]); v.IsString() {
			return v.StringValue()
		}
		return ""
	}
	switch typ {
	case "digitalocean:index/kubernetesCluster:KubernetesCluster":
		id := g.keep("clusterUrn", func() resource.PropertyValue { return s("do:kubernetes:" + uuid.NewString()) })
		outs["clusterUrn"] = id
		outs["status"] = s("running")
		outs["createdAt"] = g.keep("createdAt", now)
		outs["updatedAt"] = g.keep("updatedAt", now)
		outs["endpoint"] = g.keep("endpoint", func() resource.PropertyValue {
			return s("https://" + uuid.NewString() + ".k8s.ondigitalocean.com")
		})
		outs["ipv4Address"] = g.keep("ipv4Address", func() resource.PropertyValue { return s(randomIP("164")) })
		outs["kubeConfigs"] = g.keep("kubeConfigs", func() resource.PropertyValue {
			return doKubeConfigs(str("name"), str("region"), outs["endpoint"])
		})
	case "digitalocean:index/containerRegistry:ContainerRegistry":
		outs["endpoint"] = s("registry.digitalocean.com/" + str("name"))
		outs["serverUrl"] = s("registry.digitalocean.com")
		outs["createdAt"] = g.keep("createdAt", now)
		outs["storageUsageBytes"] = resource.NewNumberProperty(0)
		if outs["region"].IsNull() {
			outs["region"] = s("sfo3")
		}
	case "digitalocean:index/containerRegistryDockerCredentials:ContainerRegistryDockerCredentials":
		outs["dockerCredentials"] = g.keep("dockerCredentials", func() resource.PropertyValue {
			auth := base64.StdEncoding.EncodeToString([]byte(randHex(32) + ":" + randHex(32)))
			data, _ := json.Marshal(map[string]any{"auths": map[string]any{"registry.digitalocean.com": map[string]any{"auth": auth}}})
			return s(string(data))
		})
		outs["credentialExpirationTime"] = g.keep("credentialExpirationTime", now)
	case "digitalocean:index/dnsRecord:DnsRecord":
		outs["fqdn"] = s(str("name") + "." + str("domain"))
		if outs["ttl"].IsNull() {
			outs["ttl"] = resource.NewNumberProperty(1800)
		}
	}
}

// EnvDOKSTokenTTL names the variable holding how long a new DOKS
// kubeconfig token lasts (a Go duration; DigitalOcean's 7 days when
// unset): a negative one makes tokens that have already expired.
const EnvDOKSTokenTTL = "FAKECLOUD_DOKS_TOKEN_TTL"

// renew gives a DOKS cluster whose kubeconfig token expired a new one, as
// the real plugin's read does (it fetches the cluster's credentials again
// once their expiresAt has passed).
func (c *doCloud) renew(typ string, inputs, outs resource.PropertyMap) bool {
	if typ != "digitalocean:index/kubernetesCluster:KubernetesCluster" {
		return false
	}
	kc := Plain(outs["kubeConfigs"])
	if kc.IsArray() && len(kc.ArrayValue()) > 0 && kc.ArrayValue()[0].IsObject() {
		at := Plain(kc.ArrayValue()[0].ObjectValue()["expiresAt"])
		if t, err := time.Parse(time.RFC3339, fmt.Sprint(at.V)); err == nil && t.After(time.Now()) {
			return false
		}
	}
	str := func(k resource.PropertyKey) string { return fmt.Sprint(Plain(inputs[k]).V) }
	outs["kubeConfigs"] = resource.MakeSecret(doKubeConfigs(str("name"), str("region"), outs["endpoint"]))
	return true
}

// doKubeConfigs is a DOKS cluster's kubeConfigs: one entry with the
// cluster's kubeconfig (contexts named do-<region>-<name>, a static
// token) and its parts.
func doKubeConfigs(name, region string, endpoint resource.PropertyValue) resource.PropertyValue {
	s := resource.NewStringProperty
	server := ""
	if v, _ := Contents(endpoint); v.IsString() {
		server = v.StringValue()
	}
	entry := "do-" + region + "-" + name
	ca := base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nfake DOKS CA\n-----END CERTIFICATE-----\n"))
	token := "dop_v1_" + randHex(64)
	raw := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: %s
    server: %s
  name: %s
contexts:
- context:
    cluster: %s
    user: %s-admin
  name: %s
current-context: %s
users:
- name: %s-admin
  user:
    token: %s
`, ca, server, entry, entry, entry, entry, entry, entry, token)
	ttl, err := time.ParseDuration(os.Getenv(EnvDOKSTokenTTL))
	if err != nil {
		ttl = 7 * 24 * time.Hour
	}
	expires := resource.NewStringProperty(time.Now().Add(ttl).UTC().Format(time.RFC3339))
	return resource.NewArrayProperty([]resource.PropertyValue{resource.NewObjectProperty(resource.PropertyMap{
		"rawConfig": s(raw), "host": s(server), "clusterCaCertificate": s(ca), "token": s(token), "expiresAt": expires,
	})})
}
