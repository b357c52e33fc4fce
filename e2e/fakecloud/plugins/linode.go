package plugins

import (
	"encoding/base64"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// linodeCloud is the fake linode provider.
type linodeCloud struct{ tokenCloud }

// newID is a Linode's numeric ID.
func (c *linodeCloud) newID(string, resource.PropertyMap) string {
	return fmt.Sprint(100000 + time.Now().UnixNano()%900000)
}

// replaces: an LKE cluster moves region only by being made again.
func (c *linodeCloud) replaces(typ string, key resource.PropertyKey, _, _ resource.PropertyMap) bool {
	return typ == "linode:index/lkeCluster:LkeCluster" && key == "region"
}

// refuse fails what Linode's API answers 400 to though the plugin's
// schema takes it: a tag must be 3 to 50 characters long.
func (c *linodeCloud) refuse(_ string, inputs resource.PropertyMap) error {
	tags := Plain(inputs["tags"])
	if !tags.IsArray() {
		return nil
	}
	for i, t := range tags.ArrayValue() {
		if s := Plain(t); s.IsString() && (len(s.StringValue()) < 3 || len(s.StringValue()) > 50) {
			return fmt.Errorf("[400] [tags[%d]] Length must be 3-50 characters (the tag %q)", i, s.StringValue())
		}
	}
	return nil
}

// outputs computes what Linode's API returns for an LKE cluster: its API
// endpoints, status, dashboard and the kubeconfig, base64 as LKE gives
// it (context lke<id>-ctx, user lke<id>-admin).
func (c *linodeCloud) outputs(typ string, g *gen, inputs, outs resource.PropertyMap) {
	if typ != "linode:index/lkeCluster:LkeCluster" {
		return
	}
	s := resource.NewStringProperty
	region := "us-central"
	if v := Plain(inputs["region"]); v.IsString() {
		region = v.StringValue()
	}
	endpoint := g.keep("apiEndpoints", func() resource.PropertyValue {
		return resource.NewArrayProperty([]resource.PropertyValue{s("https://" + uuid.NewString() + "." + region + "-1.linodelke.net:443")})
	})
	outs["apiEndpoints"] = endpoint
	outs["status"] = s("ready")
	outs["dashboardUrl"] = g.keep("dashboardUrl", func() resource.PropertyValue { return s("https://dashboard.linodelke.net/" + randHex(12)) })
	outs["kubeconfig"] = g.keep("kubeconfig", func() resource.PropertyValue {
		server := ""
		if v, _ := Contents(endpoint); v.IsArray() && len(v.ArrayValue()) > 0 {
			server = v.ArrayValue()[0].StringValue()
		}
		id := "lke" + fmt.Sprint(100000+time.Now().UnixNano()%900000)
		ca := base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nfake LKE CA\n-----END CERTIFICATE-----\n"))
		raw := fmt.Sprintf("apiVersion: v1\nkind: Config\npreferences: {}\nclusters:\n- cluster:\n    certificate-authority-data: %s\n    server: %s\n  name: %s\n"+
			"users:\n- name: %s-admin\n  user:\n    as-user-extra: {}\n    token: %s\ncontexts:\n- context:\n    cluster: %s\n    namespace: default\n    user: %s-admin\n  name: %s-ctx\ncurrent-context: %s-ctx\n",
			ca, server, id, id, randHex(64), id, id, id, id)
		return s(base64.StdEncoding.EncodeToString([]byte(raw)))
	})
}
