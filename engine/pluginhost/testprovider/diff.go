package main

import (
	"sort"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
)

// diffMaps compares olds with news key by key (secrets compared by their
// values, assets and archives by hash, an unknown new value always counting
// as a change) and returns a detailed diff: replaces(k) keys replace, the
// others update; deleteBeforeReplace is set when a replace is needed and
// dbr asks for it.
func diffMaps(olds, news resource.PropertyMap, replaces func(resource.PropertyKey) bool, dbr bool) plugin.DiffResult {
	detailed := map[string]plugin.PropertyDiff{}
	replace := false
	for _, k := range unionKeys(olds, news) {
		o, inOld := olds[k]
		n, inNew := news[k]
		inOld = inOld && !o.IsNull()
		inNew = inNew && !n.IsNull()
		var kind plugin.DiffKind
		switch {
		case !inOld && !inNew:
			continue
		case !inOld:
			kind = plugin.DiffAdd
		case !inNew:
			kind = plugin.DiffDelete
		case !n.ContainsUnknowns() && plain(o).DeepEquals(plain(n)):
			continue
		default:
			kind = plugin.DiffUpdate
		}
		if replaces(k) {
			kind, replace = kind.AsReplace(), true
		}
		detailed[string(k)] = plugin.PropertyDiff{Kind: kind, InputDiff: true}
	}
	if len(detailed) == 0 {
		return plugin.DiffResult{Changes: plugin.DiffNone}
	}
	return plugin.DiffResult{
		Changes:             plugin.DiffSome,
		DetailedDiff:        detailed,
		DeleteBeforeReplace: replace && dbr,
	}
}

// unionKeys returns the keys of a and b, sorted.
func unionKeys(a, b resource.PropertyMap) []resource.PropertyKey {
	seen := map[resource.PropertyKey]bool{}
	var keys []resource.PropertyKey
	for _, m := range []resource.PropertyMap{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

// plain returns v with every secret replaced by its value, at any depth.
func plain(v resource.PropertyValue) resource.PropertyValue {
	v = unwrapSecret(v)
	switch {
	case v.IsObject():
		m := resource.PropertyMap{}
		for k, e := range v.ObjectValue() {
			m[k] = plain(e)
		}
		return resource.NewObjectProperty(m)
	case v.IsArray():
		a := make([]resource.PropertyValue, len(v.ArrayValue()))
		for i, e := range v.ArrayValue() {
			a[i] = plain(e)
		}
		return resource.NewArrayProperty(a)
	}
	return v
}
