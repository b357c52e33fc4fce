package stepexec

import "github.com/runnerhq/runner/engine/resource"

// SecretOutputs marks secret the outputs named by extra and those whose key
// names a secret input. It copies outs only when it changes something.
func SecretOutputs(outs, ins resource.PropertyMap, extra []string) resource.PropertyMap {
	var out resource.PropertyMap
	mark := func(k string) {
		v, ok := outs[k]
		if !ok {
			return
		}
		if _, already := v.(resource.Secret); already {
			return
		}
		if out == nil {
			out = make(resource.PropertyMap, len(outs))
			for key, val := range outs {
				out[key] = val
			}
		}
		plain, _ := resource.UnsecretDeep(v)
		out[k] = resource.Secret{Element: plain}
	}
	for _, k := range extra {
		mark(k)
	}
	for k, v := range ins {
		if resource.ContainsSecret(v) {
			mark(k)
		}
	}
	if out == nil {
		if outs == nil {
			return resource.PropertyMap{}
		}
		return outs
	}
	return out
}

// KeepSecrets marks secret in outs every key that was secret in olds.
func KeepSecrets(olds, outs resource.PropertyMap) resource.PropertyMap {
	var keys []string
	for k, v := range olds {
		if _, ok := v.(resource.Secret); ok {
			keys = append(keys, k)
		}
	}
	return SecretOutputs(outs, nil, keys)
}
