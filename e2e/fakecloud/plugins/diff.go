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
		o, inOld := olds[k]
		n, inNew := news[k]
		inOld, inNew = inOld && !o.IsNull(), inNew && !n.IsNull()
		var kind plugin.DiffKind
		switch {
		case !inOld && !inNew:
			continue
		case !inOld:
			kind = plugin.DiffAdd
		case !inNew:
			kind = plugin.DiffDelete
		case !n.ContainsUnknowns() && Plain(o).DeepEquals(Plain(n)):
			continue
		default:
			kind = plugin.DiffUpdate
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
