package pluginhost

import (
	"sort"
	"strings"
	"sync"

	"github.com/runnerhq/runner/engine/resource"
)

// minRedacted is the shortest secret string that is masked in what plugins
// say: shorter ones would mangle every message.
const minRedacted = 3

// redactor masks, in what plugins log and the output lines kept for error
// messages, the plaintext of the secrets the pool's plugins were given
// as plain values: the configuration (its variables and PULUMI_CONFIG
// carry secrets unwrapped) and the inputs sent to plugins that do not
// accept secrets. Its zero value is ready to use.
type redactor struct {
	mu   sync.RWMutex
	vals map[string]struct{}
	rep  *strings.Replacer
}

// addSecrets remembers the strings inside the secrets of m.
func (r *redactor) addSecrets(m resource.PropertyMap) {
	var found []string
	resource.Walk(m, func(v any, secret bool) bool {
		if s, ok := v.(string); ok && secret && len(s) >= minRedacted {
			found = append(found, s)
		}
		return true
	})
	if len(found) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.vals == nil {
		r.vals = map[string]struct{}{}
	}
	added := false
	for _, s := range found {
		if _, ok := r.vals[s]; !ok {
			r.vals[s], added = struct{}{}, true
		}
	}
	if !added {
		return
	}
	// A Replacer tries its strings in argument order: the longer first, so
	// that a secret holding a shorter one is masked whole.
	vals := make([]string, 0, len(r.vals))
	for s := range r.vals {
		vals = append(vals, s)
	}
	sort.Slice(vals, func(i, j int) bool {
		return len(vals[i]) > len(vals[j]) || len(vals[i]) == len(vals[j]) && vals[i] < vals[j]
	})
	pairs := make([]string, 0, 2*len(vals))
	for _, s := range vals {
		pairs = append(pairs, s, "[secret]")
	}
	r.rep = strings.NewReplacer(pairs...)
}

// apply returns s with every remembered secret masked as "[secret]".
func (r *redactor) apply(s string) string {
	r.mu.RLock()
	rep := r.rep
	r.mu.RUnlock()
	if rep == nil {
		return s
	}
	return rep.Replace(s)
}
