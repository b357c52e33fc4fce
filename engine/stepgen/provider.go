package stepgen

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
)

// DefaultProviderName names the default provider of a plugin of the given
// version as Pulumi does: "default_1_2_3", with the pre-release and build
// identifiers appended ("default_1_2_3_alpha_1"), or "default" when the
// version is not known.
func DefaultProviderName(version string) (string, error) {
	if version == "" {
		return "default", nil
	}
	v := strings.TrimPrefix(version, "v")
	var build, pre []string
	if i := strings.IndexByte(v, '+'); i >= 0 {
		build, v = strings.Split(v[i+1:], "."), v[:i]
	}
	if i := strings.IndexByte(v, '-'); i >= 0 {
		pre, v = strings.Split(v[i+1:], "."), v[:i]
	}
	core := strings.Split(v, ".")
	bad := fmt.Errorf("its version %q is not a semantic version (major.minor.patch)", version)
	if len(core) > 3 {
		return "", bad
	}
	name := "default"
	for i := range 3 {
		n := uint64(0)
		if i < len(core) {
			var err error
			if n, err = strconv.ParseUint(core[i], 10, 64); err != nil {
				return "", bad
			}
		}
		name += "_" + strconv.FormatUint(n, 10)
	}
	for _, id := range append(pre, build...) {
		if id == "" || strings.ContainsAny(id, ":/ ") {
			return "", bad
		}
		name += "_" + id
	}
	return name, nil
}

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
