package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/pluginhost"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
)

// hook returns the on_success hook that runs command (a shell command
// line, run by sh in the workspace folder) in its own process group, tied
// to runner's life. Its environment is the run's, plus RUNNER_PROJECT,
// RUNNER_STACK and one RUNNER_OUTPUT_<NAME> per stack output (strings as
// they are, other values as JSON); secret outputs are left out.
func hook(ws, command string) providers.Hook {
	return func(ctx context.Context, in providers.HookInput) error {
		cmd := exec.Command("/bin/sh", "-c", command)
		cmd.Dir = ws
		cmd.Env = hookEnv(in)
		cmd.Stdout, cmd.Stderr = in.Log, in.Log
		t, err := pluginhost.StartTied(cmd)
		if err != nil {
			return fmt.Errorf("starting the on_success command %q: %w", command, err)
		}
		select {
		case <-t.Exited():
		case <-ctx.Done():
			t.Stop(5 * time.Second)
			return fmt.Errorf("the on_success command %q was interrupted: %w", command, ctx.Err())
		}
		if err := t.Wait(); err != nil {
			return fmt.Errorf("the on_success command %q failed (its output is above): %w", command, err)
		}
		return nil
	}
}

func hookEnv(in providers.HookInput) []string {
	env := map[string]string{}
	for k, v := range in.Env {
		env[k] = v
	}
	env["RUNNER_PROJECT"], env["RUNNER_STACK"] = in.Project, in.Runtime.Stack
	for k, v := range in.Outputs {
		if s, ok := envValue(v); ok {
			env["RUNNER_OUTPUT_"+envName(k)] = s
		}
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// envValue returns an output as a variable's value; false for a secret or
// a value holding one.
func envValue(v any) (string, bool) {
	secret := false
	resource.Walk(v, func(_ any, s bool) bool {
		secret = secret || s
		return !secret
	})
	if secret {
		return "", false
	}
	if s, ok := v.(string); ok {
		return s, true
	}
	b, err := json.Marshal(plainJSON(v))
	if err != nil {
		return "", false
	}
	return string(b), true
}

// plainJSON returns v with the engine's own value types as their display
// forms.
func plainJSON(v any) any {
	return resource.Map(v, func(x any) (any, bool) {
		switch y := x.(type) {
		case resource.Computed:
			return nil, true
		case resource.Asset:
			return y.String(), true
		case resource.Archive:
			return y.String(), true
		case resource.ResourceReference:
			return y.String(), true
		}
		return nil, false
	})
}

// envName is an output name as a variable name: upper case, every other
// character than a letter or digit an underscore (clusterName ->
// CLUSTERNAME, kube-config -> KUBE_CONFIG).
func envName(k string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, k)
}
