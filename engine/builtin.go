package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/runnerhq/runner/engine/monitor"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/source"
)

// The built-in pulumi package: stack references (read as resources of type
// pulumi:pulumi:StackReference) and the getResource function, served by
// the engine itself.
const (
	stackReferenceType = "pulumi:pulumi:StackReference"
	getResourceToken   = "pulumi:pulumi:getResource"
)

// ReadResource reads an existing resource into the program: a
// registration read through its plugin and recorded as Pulumi records a
// read (external; see stepgen.DecideRead). A stack reference is such a
// read too, of the built-in pulumi package (pulumiPackage), its ID the
// referenced stack's name.
func (d *deployment) ReadResource(ctx context.Context, req monitor.ReadRequest) (source.Answer, error) {
	id := req.ID
	if req.Type == stackReferenceType && id == "" {
		if id, _ = req.Inputs["name"].(string); id == "" {
			id = req.Name
		}
	}
	if id == "" {
		return source.Answer{}, fmt.Errorf("reading %s %q: the program gave no ID to read", req.Type, req.Name)
	}
	ans, err := d.Register(ctx, &source.Registration{URN: req.URN, Type: req.Type, Name: req.Name, Custom: true,
		Parent: req.Parent, Inputs: req.Inputs, Dependencies: req.Dependencies, Provider: req.Provider,
		Version: req.Version, PluginDownloadURL: req.PluginDownloadURL, Parameterization: req.Parameterization,
		AdditionalSecretOutputs: req.AdditionalSecretOutputs, ReadID: id})
	if err == nil && req.Type == stackReferenceType && d.DryRun && d.unknownsAbsent() {
		ans.Outputs = withoutUnknownOutputs(ans.Outputs)
	}
	return ans, err
}

// runRead runs the step of a read resource, its provider ready: decided
// by the generator, checked against the plan being executed, read and
// recorded by the executor. The Read goes to the provider's plugin as
// configured now (never to a replaced provider's).
func (d *deployment) runRead(ctx context.Context, dr *runstate.Declared) (func(), error) {
	if dr.Plugin = dr.Prov.Plugin; dr.Plugin == nil {
		dr.Plugin = dr.Prov.Base
	}
	cs, err := d.gen.DecideRead(dr)
	if err != nil {
		return d.exec.FailEarly(dr, err)
	}
	dr.Step = cs.Step
	if failed, err := d.checkPlanned(dr); err != nil {
		return failed, err
	}
	return d.exec.ExecRead(ctx, dr, &cs)
}

// readStackReference reads the stack reference name: the referenced
// project's outputs ({name, outputs, secretOutputNames}), its planned
// outputs in this operation, else those stored. A project that is not
// upstream of this one, or a stack that does not exist, is an error.
func (d *deployment) readStackReference(ctx context.Context, name string) (resource.PropertyMap, error) {
	project, stack, err := d.parseStackName(name)
	if err != nil {
		return nil, err
	}
	if _, ours := d.opts.Upstream[project]; d.opts.Upstream != nil && project != d.opts.Project && !ours {
		return nil, fmt.Errorf("stack reference %q: there is no project %s in the environment of %s; a stack reference reads a project of its environment that %s depends on",
			name, project, d.opts.Project, d.opts.Project)
	}
	if d.opts.Upstream != nil && project != d.opts.Project && !d.opts.Upstream[project] {
		return nil, fmt.Errorf("stack reference %q: project %s is not upstream of %s in its environment; add %s to the dependsOn of %s, so that it runs first",
			name, project, d.opts.Project, project, d.opts.Project)
	}
	opts := *d.opts
	if stack != d.opts.Stack {
		opts.References = nil // this operation's outputs are of its own stack
		if opts.ReferenceCrypter != nil {
			if opts.Crypter, err = opts.ReferenceCrypter(ctx, project, stack); err != nil {
				return nil, fmt.Errorf("stack reference %q: %w", name, err)
			}
		}
	}
	opts.Stack = stack
	outs, _, err := stackOutputs(ctx, &opts)(project)
	switch {
	case err != nil:
		return nil, fmt.Errorf("stack reference %q: %w", name, err)
	case outs == nil:
		return nil, fmt.Errorf("stack reference %q: project %s has no stack %s; deploy it first", name, project, stack)
	}
	var secret []any
	for _, k := range outs.SortedKeys() {
		if resource.ContainsSecret(outs[k]) {
			secret = append(secret, k)
		}
	}
	if secret == nil {
		secret = []any{}
	}
	return resource.PropertyMap{"name": name, "outputs": map[string]any(outs), "secretOutputNames": secret}, nil
}

// parseStackName reads a stack reference's name: "<stack>",
// "<project>/<stack>" or "<organization>/<project>/<stack>".
func (d *deployment) parseStackName(name string) (project, stack string, err error) {
	parts := strings.Split(name, "/")
	switch {
	case len(parts) == 1 && parts[0] != "":
		return d.opts.Project, parts[0], nil
	case len(parts) == 2 && parts[0] != "" && parts[1] != "":
		return parts[0], parts[1], nil
	case len(parts) == 3 && parts[1] != "" && parts[2] != "":
		if parts[0] != d.organization() {
			return "", "", fmt.Errorf("stack reference %q: the organization is %q here, not %q", name, d.organization(), parts[0])
		}
		return parts[1], parts[2], nil
	}
	return "", "", fmt.Errorf("stack reference %q: a stack name is <stack>, <project>/<stack> or <organization>/<project>/<stack>", name)
}

// Invoke calls a function: pulumi:pulumi:getResource, or one of a
// package's through its default or explicit provider.
func (d *deployment) Invoke(ctx context.Context, req monitor.InvokeRequest) (monitor.InvokeResult, error) {
	if req.Token == getResourceToken {
		// As in Pulumi's engine, the invoke goes through the built-in
		// package's provider, which the state then records.
		if _, err := d.providerOf(ctx, &runstate.Declared{R: &source.Registration{Type: req.Token, Provider: req.Provider}}); err != nil {
			return monitor.InvokeResult{}, fmt.Errorf("invoking %s: %w", req.Token, err)
		}
		return d.getResource(req.Args)
	}
	if resource.Package(req.Token) == "pulumi" {
		return monitor.InvokeResult{}, fmt.Errorf("%s: the built-in pulumi package has no such function", req.Token)
	}
	p, err := d.providerOf(ctx, &runstate.Declared{R: &source.Registration{Type: req.Token, Provider: req.Provider,
		Version: req.Version, PluginDownloadURL: req.PluginDownloadURL, Parameterization: req.Parameterization}})
	if err != nil {
		return monitor.InvokeResult{}, fmt.Errorf("invoking %s: %w", req.Token, err)
	}
	plugin := p.Plugin
	if plugin == nil {
		plugin = p.Base
	}
	inv, ok := plugin.(resource.Invoker)
	if !ok {
		return monitor.InvokeResult{}, fmt.Errorf("invoking %s: the %s plugin serves no functions", req.Token, p.Pkg)
	}
	resp, err := inv.Invoke(context.WithoutCancel(ctx), resource.InvokeRequest{Token: req.Token, Args: req.Args})
	if err != nil {
		return monitor.InvokeResult{}, runstate.RedactErr(fmt.Errorf("invoking %s: %w", req.Token, err), nil)
	}
	return monitor.InvokeResult{Return: resp.Return, Failures: resp.Failures}, nil
}

// getResource answers pulumi:pulumi:getResource: the URN, ID and outputs
// of a resource registered in this run, else recorded.
func (d *deployment) getResource(args resource.PropertyMap) (monitor.InvokeResult, error) {
	urn, _ := args["urn"].(string)
	d.Mu.Lock()
	defer d.Mu.Unlock()
	for i := len(d.News) - 1; i >= 0; i-- {
		if r := d.News[i]; string(r.URN) == urn {
			return monitor.InvokeResult{Return: resource.PropertyMap{"urn": urn, "id": r.ID, "state": map[string]any(r.Outputs)}}, nil
		}
	}
	if r := d.OldLive[resource.URN(urn)]; r != nil {
		return monitor.InvokeResult{Return: resource.PropertyMap{"urn": urn, "id": r.ID, "state": map[string]any(r.Outputs)}}, nil
	}
	return monitor.InvokeResult{}, fmt.Errorf("%s: no resource %q is registered or recorded", getResourceToken, urn)
}

// Schema returns a package's schema: the built-in pulumi package's, or
// the one its plugin gives (a parameterized package's, pz not nil: its
// base plugin's, parameterized).
func (d *deployment) Schema(ctx context.Context, pkg, version, url string, pz *resource.Parameterization) ([]byte, error) {
	if pkg == "pulumi" {
		return []byte(pulumiSchema), nil
	}
	plugin, err := d.PackagePlugin(ctx, pkg, version, url, pz)
	if err != nil {
		return nil, err
	}
	ss, ok := plugin.(resource.SchemaSource)
	if !ok {
		return nil, fmt.Errorf("the %s plugin is built into runner and has no schema", pkg)
	}
	return ss.Schema(context.WithoutCancel(ctx))
}

// pulumiSchema is the schema of the built-in pulumi package, as the
// language hosts know it: the StackReference resource and getResource.
const pulumiSchema = `{
  "name": "pulumi",
  "version": "3.0.0",
  "resources": {
    "pulumi:pulumi:StackReference": {
      "description": "The outputs of another stack.",
      "inputProperties": {"name": {"type": "string"}},
      "requiredInputs": ["name"],
      "properties": {
        "name": {"type": "string"},
        "outputs": {"type": "object", "additionalProperties": {"$ref": "pulumi.json#/Any"}},
        "secretOutputNames": {"type": "array", "items": {"type": "string"}}
      },
      "required": ["name", "outputs", "secretOutputNames"]
    }
  },
  "functions": {
    "pulumi:pulumi:getResource": {
      "inputs": {"properties": {"urn": {"type": "string"}}, "required": ["urn"]},
      "outputs": {
        "properties": {
          "urn": {"type": "string"},
          "id": {"type": "string"},
          "state": {"type": "object", "additionalProperties": {"$ref": "pulumi.json#/Any"}}
        },
        "required": ["urn", "id", "state"]
      }
    }
  }
}`

// recorded answers a compiled-in program's Context.Recorded: the outputs
// of the live resource the old state (pending operations resolved) has
// under urn, a copy.
func (d *deployment) recorded(urn resource.URN) (resource.PropertyMap, bool) {
	r := d.OldLive[urn]
	if r == nil {
		return nil, false
	}
	return r.Outputs.Copy(0), true
}
