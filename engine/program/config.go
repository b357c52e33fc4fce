package program

import (
	"fmt"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
)

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
	if !ok {
		return nil, false, nil
	}
	plain, secret := resource.UnsecretDeep(v)
	if secret {
		return nil, true, fmt.Errorf("the config value %s is secret, but the program needs it in plain text to decide which resources it declares; set it with `runner config set %s <value>` (without --secret)", key, key)
	}
	return plain, true, nil
}
