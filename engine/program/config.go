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

// PlainConfig returns the value of the config key as the stack config holds
// it (a string; []any or map[string]any for a structured value) and whether
// it is set, for the values that decide which resources a program declares,
// such as one subnet per zone of a list. The key is looked up as Config does.
// A secret value is an error: what a program declares may not depend on a
// secret, since the resources' names would show it.
func (c *Context) PlainConfig(key string) (any, bool, error) {
	v, ok := c.config[key]
	if !ok && !strings.Contains(key, ":") {
		key = c.project + ":" + key
		v, ok = c.config[key]
	}
	if !ok || v == nil {
		return nil, false, nil
	}
	plain, secret := resource.UnsecretDeep(v)
	if secret {
		return nil, true, fmt.Errorf("the config value %s is secret, but the program needs it in plain text to decide which resources it declares; set it with `runner config set %s <value>` (without --secret)", key, key)
	}
	return plain, true, nil
}

// PlainString is PlainConfig for a single value (a chart version, a file
// path), as a string: a structured value is an error.
func (c *Context) PlainString(key string) (string, bool, error) {
	v, ok, err := c.PlainConfig(key)
	if !ok || err != nil {
		return "", ok, err
	}
	switch x := v.(type) {
	case string:
		return x, true, nil
	case bool, int, int64, float64:
		return fmt.Sprint(x), true, nil
	}
	return "", true, fmt.Errorf("the config value %s is a structured value (a list or map) where a single value belongs", key)
}

// Plaintext returns the text of the config value key (looked up as
// Config does), secret or not, and whether it is set, for a call the
// program makes itself with it, such as an API token in the header of a
// request to the cloud. What the program declares must not depend on a
// secret (see PlainConfig), and the text must go nowhere else.
func (c *Context) Plaintext(key string) (string, bool) {
	v, ok := c.config[key]
	if !ok && !strings.Contains(key, ":") {
		v, ok = c.config[c.project+":"+key]
	}
	if !ok || v == nil {
		return "", false
	}
	plain, _ := resource.UnsecretDeep(v)
	s, isString := plain.(string)
	return s, isString
}
