package resource

// SecretOutputs marks secret the outputs named by extra and those whose key
// names a secret input. It copies outs only when it changes something.
func SecretOutputs(outs, ins PropertyMap, extra []string) PropertyMap {
	var out PropertyMap
	mark := func(k string) {
		v, ok := outs[k]
		if !ok {
			return
		}
		if _, already := v.(Secret); already {
			return
		}
		if out == nil {
			out = make(PropertyMap, len(outs))
			for key, val := range outs {
				out[key] = val
			}
		}
		plain, _ := UnsecretDeep(v)
		out[k] = Secret{Element: plain}
	}
	for _, k := range extra {
		mark(k)
	}
	for k, v := range ins {
		if ContainsSecret(v) {
			mark(k)
		}
	}
	if out == nil {
		if outs == nil {
			return PropertyMap{}
		}
		return outs
	}
	return out
}

// KeepSecrets marks secret in outs every key that was secret in olds.
func KeepSecrets(olds, outs PropertyMap) PropertyMap {
	var keys []string
	for k, v := range olds {
		if _, ok := v.(Secret); ok {
			keys = append(keys, k)
		}
	}
	return SecretOutputs(outs, nil, keys)
}
