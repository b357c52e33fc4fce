package specprog

import (
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine"
)

// extraOptions maps the import and customTimeouts options.
func extraOptions(o Options) ([]engine.ResourceOption, error) {
	var opts []engine.ResourceOption
	if o.Import != "" {
		opts = append(opts, engine.Import(o.Import))
	}
	var t engine.CustomTimeouts
	for _, x := range []struct {
		s string
		d *time.Duration
	}{{o.Timeouts.Create, &t.Create}, {o.Timeouts.Update, &t.Update}, {o.Timeouts.Delete, &t.Delete}} {
		d, err := parseDuration(x.s)
		if err != nil {
			return nil, err
		}
		*x.d = d
	}
	if t != (engine.CustomTimeouts{}) {
		opts = append(opts, engine.Timeouts(t))
	}
	return opts, nil
}

// valueKind maps the special values that need newer engine features.
func (b *builder) valueKind(k string, arg any) (any, error) {
	return nil, fmt.Errorf("unknown special value %s", k)
}
