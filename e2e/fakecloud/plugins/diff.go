package plugins

import (
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
)

// diffMaps compares olds with news key by key (secrets by their values; an
// unknown new value is a change) and returns a detailed diff in which the
// keys replaces approves replace the resource and the others update it.
func diffMaps(olds, news resource.PropertyMap, replaces func(resource.PropertyKey) bool) plugin.DiffResult {
	detailed := map[string]plugin.PropertyDiff{}
	var changed, replaceKeys []resource.PropertyKey
	keys := map[string]bool{}
	for _, k := range append(sortedKeys(olds), sortedKeys(news)...) {
		keys[k] = true
	}
	for _, ks := range sortedKeys(setOf(keys)) {
		k := resource.PropertyKey(ks)
		kind, ok := change(olds[k], news[k])
		if !ok {
			continue
		}
		changed = append(changed, k)
		if replaces(k) {
			kind = kind.AsReplace()
			replaceKeys = append(replaceKeys, k)
		}
		detailed[ks] = plugin.PropertyDiff{Kind: kind, InputDiff: true}
	}
	if len(changed) == 0 {
		return plugin.DiffResult{Changes: plugin.DiffNone}
	}
	return plugin.DiffResult{Changes: plugin.DiffSome, ChangedKeys: changed, ReplaceKeys: replaceKeys, DetailedDiff: detailed}
}

// setOf returns the keys of a set as a property map, to sort them.
func setOf(keys map[string]bool) resource.PropertyMap {
	m := resource.PropertyMap{}
	for k := range keys {
		m[resource.PropertyKey(k)] = resource.NewNullProperty()
	}
	return m
}

// change returns how a top-level input changed from o to n (a null or
// absent value counting as none), and false when it did not.
func change(o, n resource.PropertyValue) (plugin.DiffKind, bool) {
	if o.IsNull() && n.IsNull() {
		return 0, false
	}
	if o.IsNull() {
		return plugin.DiffAdd, true
	}
	if n.IsNull() {
		return plugin.DiffDelete, true
	}
	same := !n.ContainsUnknowns() && Plain(o).DeepEquals(Plain(n))
	return plugin.DiffUpdate, !same
}
