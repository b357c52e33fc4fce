package wire

import "github.com/runnerhq/runner/engine/resource"

// Remark returns outs with secrecy put back after it was stripped on the
// way to a plugin that does not accept secrets: a value whose input of the
// same key was secret becomes secret; objects are matched key by key; a
// list (or any other value) whose input held a secret anywhere is marked
// secret whole. Values already secret are kept; outs is not changed.
func Remark(outs, ins resource.PropertyMap) resource.PropertyMap {
	if outs == nil {
		return nil
	}
	out := make(resource.PropertyMap, len(outs))
	for k, v := range outs {
		if in, ok := ins[k]; ok {
			v = remarkValue(v, in)
		}
		out[k] = v
	}
	return out
}

func remarkValue(out, in any) any {
	if _, already := out.(resource.Secret); already || !resource.ContainsSecret(in) {
		return out
	}
	if pm, ok := in.(resource.PropertyMap); ok {
		in = map[string]any(pm)
	}
	inMap, inIsMap := in.(map[string]any)
	outMap, outIsMap := out.(map[string]any)
	if !inIsMap || !outIsMap {
		return resource.Secret{Element: out}
	}
	return map[string]any(Remark(outMap, inMap))
}

// RestoreAssets returns read (the outputs a plugin's Read returned, their
// assets and archives elided to hashes) with every elided asset or archive
// replaced by the one of prior (the outputs and inputs sent) that has the
// same hash. read is not changed.
func RestoreAssets(read, prior resource.PropertyMap) resource.PropertyMap {
	assets := map[string]resource.Asset{}
	archives := map[string]resource.Archive{}
	resource.Walk(map[string]any(prior), func(v any, _ bool) bool {
		switch x := v.(type) {
		case resource.Asset:
			if x.Hash != "" && !x.IsElided() {
				assets[x.Hash] = x
			}
		case resource.Archive:
			if x.Hash != "" && !x.IsElided() {
				archives[x.Hash] = x
			}
		}
		return true
	})
	if len(assets)+len(archives) == 0 || read == nil {
		return read
	}
	out := resource.Map(map[string]any(read), func(v any) (any, bool) {
		switch x := v.(type) {
		case resource.Asset:
			if full, ok := assets[x.Hash]; ok && x.IsElided() {
				return full, true
			}
			return x, true
		case resource.Archive:
			if full, ok := archives[x.Hash]; ok && x.IsElided() {
				return full, true
			}
		}
		return nil, false
	})
	return resource.PropertyMap(out.(map[string]any))
}
