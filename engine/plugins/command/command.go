// Package command is the resource plugin for local commands, with the type
// token and property names of Pulumi's command provider:
// command:local:Command.
//
// Inputs: create, update and delete (shell command lines), environment (an
// object of strings added to the process environment), dir (working folder),
// triggers (a list; any change replaces the resource), interpreter (a list,
// default ["/bin/sh", "-c"]) and stdin. Outputs: the inputs plus stdout and
// stderr of the last command run (one trailing newline trimmed, as Pulumi
// does); both are secrets when any input holds a secret.
//
// Changes: a change of triggers replaces. When an update command is given,
// every other change runs it in place; without one, a change of create,
// environment, dir, interpreter or stdin replaces (create runs again on the
// new resource), and a change of only delete or update is recorded without
// running anything. The update and delete commands see the previous stdout
// and stderr in PULUMI_COMMAND_STDOUT and PULUMI_COMMAND_STDERR.
//
// A command runs in its own process group, which is killed when the context
// is cancelled. Commands cannot be read back: Read returns the recorded state,
// and without an ID it returns ErrNotRecognizable.
package command

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
)

// Type is the type token of a local command.
const Type = "command:local:Command"

// Plugin runs command:local:Command resources. It holds no state and is
// safe for concurrent use.
type Plugin struct{}

var _ resource.Plugin = Plugin{}

// Package returns "command".
func (Plugin) Package() string { return "command" }

// Check validates the inputs' types.
func (Plugin) Check(_ context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	if req.Type != Type {
		return nil, errUnknownType(req.Type)
	}
	news := req.News
	for _, k := range []string{"create", "update", "delete", "dir", "stdin"} {
		if known(news, k) {
			if _, err := news.String(k, ""); err != nil {
				return nil, checkErr(err)
			}
		}
	}
	if known(news, "environment") {
		if _, err := news.StringMap("environment"); err != nil {
			return nil, checkErr(err)
		}
	}
	if known(news, "interpreter") {
		in, err := news.StringList("interpreter")
		if err != nil {
			return nil, checkErr(err)
		}
		if in != nil && len(in) == 0 {
			return nil, checkErr(fmt.Errorf(`property "interpreter" must name at least a program, such as ["/bin/sh", "-c"]`))
		}
	}
	if v, _ := resource.Unsecret(news["triggers"]); v != nil {
		if _, ok := v.([]any); !ok && !resource.ContainsComputed(v) {
			return nil, checkErr(fmt.Errorf(`property "triggers" must be a list`))
		}
	}
	return news, nil
}

func checkErr(err error) error { return fmt.Errorf("checking %s: %w", Type, err) }

// replacedWithoutUpdate are the inputs whose change replaces the resource
// when no update command is given.
var replacedWithoutUpdate = map[string]bool{
	"create": true, "environment": true, "dir": true, "interpreter": true, "stdin": true,
}

// Diff applies Pulumi's rules: triggers replace; with an update command the
// rest updates; without one, what shapes the create command replaces.
func (Plugin) Diff(_ context.Context, req resource.DiffRequest) (resource.DiffResponse, error) {
	changed := resource.DiffKeys(req.OldInputs, req.NewInputs, req.IgnoreChanges)
	hasUpdate := !known(req.NewInputs, "update")
	if !hasUpdate {
		u, _ := req.NewInputs.String("update", "")
		hasUpdate = u != ""
	}
	resp := resource.DiffResponse{Changed: changed}
	for _, k := range changed {
		if k == "triggers" || (!hasUpdate && replacedWithoutUpdate[k]) {
			resp.Replaces = append(resp.Replaces, k)
		}
	}
	return resp, nil
}

// Create runs the create command (if any). With Preview set nothing runs
// and stdout and stderr are unknown (empty without a create command).
func (Plugin) Create(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	if req.Type != Type {
		return resource.CreateResponse{}, errUnknownType(req.Type)
	}
	outs := copyMap(req.Inputs)
	secret := containsSecret(req.Inputs)
	if req.Preview {
		var printed any = resource.Computed{}
		if line, err := req.Inputs.String("create", ""); err == nil && line == "" {
			printed = "" // no create command: nothing runs, nothing is printed
		}
		outs["stdout"] = wrap(printed, secret)
		outs["stderr"] = wrap(printed, secret)
		return resource.CreateResponse{Outputs: outs}, nil
	}
	res, err := run(ctx, "create", req.Inputs, nil)
	if err != nil {
		return resource.CreateResponse{}, fmt.Errorf("creating %s %s: %w", Type, req.URN, err)
	}
	outs["stdout"] = wrap(res.stdout, secret)
	outs["stderr"] = wrap(res.stderr, secret)
	id, err := newID()
	if err != nil {
		return resource.CreateResponse{}, fmt.Errorf("creating %s %s: %w", Type, req.URN, err)
	}
	return resource.CreateResponse{ID: id, Outputs: outs}, nil
}

// Read returns the recorded state: a command's effect cannot be read back.
func (Plugin) Read(_ context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
	if req.ID == "" {
		return resource.ReadResponse{}, resource.ErrNotRecognizable
	}
	return resource.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: req.Outputs}, nil
}

// Update runs the update command when one is given; otherwise it records
// the new inputs and keeps the previous stdout and stderr.
func (Plugin) Update(ctx context.Context, req resource.UpdateRequest) (resource.UpdateResponse, error) {
	if req.Type != Type {
		return resource.UpdateResponse{}, errUnknownType(req.Type)
	}
	outs := copyMap(req.NewInputs)
	secret := containsSecret(req.NewInputs) || containsSecret(req.OldOutputs)
	update, _ := req.NewInputs.String("update", "")
	if !known(req.NewInputs, "update") || update != "" {
		if req.Preview {
			outs["stdout"] = wrap(resource.Computed{}, secret)
			outs["stderr"] = wrap(resource.Computed{}, secret)
			return resource.UpdateResponse{Outputs: outs}, nil
		}
		res, err := run(ctx, "update", req.NewInputs, req.OldOutputs)
		if err != nil {
			return resource.UpdateResponse{}, fmt.Errorf("updating %s %s: %w", Type, req.URN, err)
		}
		outs["stdout"] = wrap(res.stdout, secret)
		outs["stderr"] = wrap(res.stderr, secret)
		return resource.UpdateResponse{Outputs: outs}, nil
	}
	for _, k := range []string{"stdout", "stderr"} {
		v, _ := resource.Unsecret(req.OldOutputs[k])
		outs[k] = wrap(v, secret)
	}
	return resource.UpdateResponse{Outputs: outs}, nil
}

// Delete runs the delete command (if any) with the recorded inputs.
func (Plugin) Delete(ctx context.Context, req resource.DeleteRequest) error {
	if _, err := run(ctx, "delete", req.Inputs, req.Outputs); err != nil {
		return fmt.Errorf("deleting %s %s: %w", Type, req.URN, err)
	}
	return nil
}

func newID() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("reading random bytes for the ID: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func errUnknownType(t string) error {
	return fmt.Errorf("the command plugin has no resource type %q; it has %s", t, Type)
}

func copyMap(m resource.PropertyMap) resource.PropertyMap {
	out := make(resource.PropertyMap, len(m)+2)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func known(m resource.PropertyMap, key string) bool {
	return !resource.ContainsComputed(m[key])
}

func wrap(v any, secret bool) any {
	if secret {
		return resource.Secret{Element: v}
	}
	return v
}

// containsSecret reports whether v holds a Secret anywhere.
func containsSecret(v any) bool {
	switch x := v.(type) {
	case resource.Secret:
		return true
	case resource.PropertyMap:
		return containsSecret(map[string]any(x))
	case map[string]any:
		for _, e := range x {
			if containsSecret(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if containsSecret(e) {
				return true
			}
		}
	}
	return false
}
