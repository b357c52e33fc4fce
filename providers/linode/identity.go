package linode

import (
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
)

// lookup finds an LKE cluster, whose number Linode assigns, by its label
// (unique among an account's clusters) through the plugin's
// getLkeClusters, so that an interrupted create is adopted or made again;
// one in another region is refused (it is not the one this create made).
func lookup(typ string, inputs resource.PropertyMap) (resource.Lookup, bool) {
	label := providers.Plain(inputs, "label")
	if typ != "linode:index/lkeCluster:LkeCluster" || label == "" {
		return resource.Lookup{}, false
	}
	return resource.Lookup{
		Token: "linode:index/getLkeClusters:getLkeClusters",
		Args:  resource.PropertyMap{"filters": []any{map[string]any{"name": "label", "values": []any{label}}}},
		Found: func(r resource.PropertyMap) (string, error) {
			id, err := providers.OneID(r, "lkeClusters", "LKE clusters labelled "+label)
			if err != nil || id == "" {
				return id, err
			}
			list, _ := resource.Unsecret(r["lkeClusters"])
			return id, providers.SameRegion(providers.ObjectOf(list.([]any)[0]), providers.Plain(inputs, "region"), "the LKE cluster "+label)
		},
	}, true
}
