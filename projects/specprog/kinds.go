package specprog

import (
	"fmt"

	"github.com/runnerhq/runner/engine"
)

// extraOptions maps the options that need newer engine features.
func extraOptions(o Options) ([]engine.ResourceOption, error) {
	for _, t := range []string{o.Timeouts.Create, o.Timeouts.Update, o.Timeouts.Delete} {
		if _, err := parseDuration(t); err != nil {
			return nil, err
		}
	}
	if o.Import != "" || o.Timeouts != (Timeouts{}) {
		return nil, fmt.Errorf("import and customTimeouts are not supported by this build of the spec program yet")
	}
	return nil, nil
}

// valueKind maps the special values that need newer engine features.
func (b *builder) valueKind(k string, arg any) (any, error) {
	return nil, fmt.Errorf("unknown special value %s", k)
}
