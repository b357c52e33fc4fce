package program

import (
	"fmt"
	"sort"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
)

// ConfigKeys returns every key of the stack config ("namespace:name"),
// sorted.
func (c *Context) ConfigKeys() []string {
	keys := make([]string, 0, len(c.config))
	for k := range c.config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SecretConfigKeys returns the keys of the stack config whose values are
// stored as secrets, sorted: what Pulumi's programs learn from
// PULUMI_CONFIG_SECRET_KEYS. Their values are read with Config, which keeps
// them secret.
func (c *Context) SecretConfigKeys() []string {
	var keys []string
	for k, v := range c.config {
		if _, ok := v.(resource.Secret); ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// PlainConfig returns the value of a config key that is not secret as a
// string, and whether it is set, while the program declares its resources
// (a chart version, a file path: values that decide what to declare). A
// key without a namespace is looked up in the project's namespace too. A
// secret or structured value is an error: secrets are read with Config,
// which keeps them secret.
func (c *Context) PlainConfig(key string) (string, bool, error) {
	v, ok := c.config[key]
	if !ok && !strings.Contains(key, ":") {
		key = c.project + ":" + key
		v, ok = c.config[key]
	}
	if !ok || v == nil {
		return "", false, nil
	}
	switch x := v.(type) {
	case resource.Secret:
		return "", true, fmt.Errorf("the config value %s is a secret; read it with Config, which keeps it secret", key)
	case string:
		return x, true, nil
	case bool, int, int64, float64:
		return fmt.Sprint(x), true, nil
	}
	return "", true, fmt.Errorf("the config value %s is a structured value (a list or map) where a single value belongs", key)
}
