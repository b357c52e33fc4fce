// Package network chooses where the local environment listens: 127.0.0.1 and
// a TCP port picked free at the first deploy and kept afterwards, unless the
// config key app:port pins one.
package network

import (
	"fmt"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugins/process"
	"github.com/runnerhq/runner/projects/local/localenv"
)

// Program declares the port. Outputs: host, port, url.
func Program(rt localenv.Runtime) engine.Program {
	return func(ctx *engine.Context) error {
		inputs := engine.Inputs{"host": "127.0.0.1"}
		if pinned, ok := ctx.Config("app:port"); ok {
			inputs["port"] = pinned.Apply(func(v any) (any, error) {
				return toPort(v)
			})
		}
		port := ctx.Resource(process.PortType, "app-port", inputs)
		ctx.Export("host", port.Output("host"))
		ctx.Export("port", port.Output("assigned"))
		ctx.Export("url", port.Output("assigned").Apply(func(v any) (any, error) {
			return fmt.Sprintf("https://127.0.0.1:%d/", int(v.(float64))), nil
		}))
		return nil
	}
}

// toPort accepts a port given as a number or as a string of digits.
func toPort(v any) (any, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	case string:
		var p int
		if _, err := fmt.Sscanf(x, "%d", &p); err != nil || fmt.Sprint(p) != x {
			return nil, fmt.Errorf("config app:port must be a port number, not %q", x)
		}
		return float64(p), nil
	}
	return nil, fmt.Errorf("config app:port must be a port number, not %v", v)
}
