package stepgen

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
)

// ProviderInputs builds a default provider's inputs from the stack config:
// every key "<pkg>:<key>" as "key", its value a string (other values
// JSON-encoded; secrets stay secret, unknown values unknown), plus
// "version" when known.
func ProviderInputs(config map[string]any, pkg, version string) (resource.PropertyMap, error) {
	in := resource.PropertyMap{}
	prefix := pkg + ":"
	for k, v := range config {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		key := strings.TrimPrefix(k[len(prefix):], "config:")
		if key == "" {
			continue
		}
		s, err := ConfigString(v)
		if err != nil {
			return nil, fmt.Errorf("config key %s: %w", k, err)
		}
		in[key] = s
	}
	if version != "" {
		in["version"] = version
	}
	return in, nil
}

// ConfigString turns a config value into the string a provider receives.
func ConfigString(v any) (any, error) {
	switch x := v.(type) {
	case string, resource.Computed:
		return x, nil
	case resource.Secret:
		s, err := ConfigString(x.Element)
		if _, ok := s.(resource.Secret); ok || err != nil {
			return s, err
		}
		return resource.Secret{Element: s}, nil
	}
	if resource.ContainsComputed(v) {
		return resource.Computed{}, nil
	}
	plain, secret := resource.UnsecretDeep(v)
	b, err := json.Marshal(plain)
	if err != nil {
		return nil, fmt.Errorf("encoding it as JSON for the provider: %w", err)
	}
	if secret {
		return resource.Secret{Element: string(b)}, nil
	}
	return string(b), nil
}
