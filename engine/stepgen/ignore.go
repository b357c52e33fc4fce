package stepgen

import (
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
)

// IgnoreChanges keeps, in news, the recorded value at each ignored
// property path (removing the value where olds have none).
func IgnoreChanges(news, olds resource.PropertyMap, paths []string) error {
	for _, s := range paths {
		p, err := resource.ParsePropertyPath(s)
		if err != nil {
			return fmt.Errorf("its ignoreChanges: %w", err)
		}
		if v, ok := p.Get(olds); ok {
			if !p.Set(news, v) && !hasIndex(p) {
				return fmt.Errorf("its ignoreChanges path %q does not fit its inputs: a value on the path is not a map", s)
			} // else a list element in the olds only: nothing to keep (as Pulumi)
		} else {
			p.Delete(news)
		}
	}
	return nil
}

// hasIndex reports whether a path goes through a list element.
func hasIndex(p resource.PropertyPath) bool {
	for _, el := range p {
		if _, ok := el.(int); ok {
			return true
		}
	}
	return false
}
