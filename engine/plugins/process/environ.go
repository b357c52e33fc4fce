package process

import (
	"os"
	"sort"
	"strings"
)

// inheritedVars are the variables of runner's own environment that a started
// process keeps; the locale's LC_* variables are kept too. Everything else
// (the stack's passphrase, cloud credentials, whatever the environment
// file set) stays with runner: a process left running must not hold a
// secret. What a process needs beyond these is declared in its
// environment input.
var inheritedVars = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR"}

// Environment returns the environment of a started process: the variables
// of parent that it inherits (PATH, HOME, USER, LOGNAME, LANG, LANGUAGE,
// LC_*, TZ, TMPDIR) (KEY=VALUE lines, as os.Environ gives them), then
// declared, sorted by name (a declared variable overrides an inherited one).
func Environment(parent []string, declared map[string]string) []string {
	var out []string
	for _, kv := range parent {
		k, _, _ := strings.Cut(kv, "=")
		if _, over := declared[k]; !over && inherited(k) {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(declared))
	for k := range declared {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+declared[k])
	}
	return out
}

func inherited(key string) bool {
	if strings.HasPrefix(key, "LC_") {
		return true
	}
	for _, k := range inheritedVars {
		if k == key {
			return true
		}
	}
	return false
}

// environ is the environment processes inherit from.
func (p Plugin) environ() []string {
	if p.Environ == nil {
		return os.Environ()
	}
	return p.Environ
}
