// Package aws_test runs the programs of the aws provider's projects (vpc,
// eks, ecr) the way the engine does, against the contract of Pulumi's aws
// provider (testdata: the part of ../shared/provider-contracts/aws.json they
// use): every type token, input name, required input and coarse type, and
// every output the programs read.
package aws_test

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
)

//go:embed testdata/aws-contract.json
var contractJSON []byte

type input struct {
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

type contract struct {
	Resources map[string]struct {
		Inputs  map[string]input `json:"inputs"`
		Outputs []string         `json:"outputs"`
	} `json:"resources"`
}

// deployed is what a fake deployment of a program gave.
type deployed struct {
	types   map[string]string               // resource name -> type
	inputs  map[string]resource.PropertyMap // resource name -> inputs
	outputs resource.PropertyMap            // stack outputs
}

// deploy runs prog like the engine, each resource "created" by a fake aws
// plugin that checks its inputs against the contract and returns every
// output the contract lists (inputs echoed, the rest generated); with
// preview, the generated outputs are unknown.
func deploy(t *testing.T, prog program.Program, cfg map[string]any, refs map[string]resource.PropertyMap, preview bool) (deployed, error) {
	t.Helper()
	var c contract
	if err := json.Unmarshal(contractJSON, &c); err != nil {
		t.Fatal(err)
	}
	env := program.Env{Project: "p", Stack: "dev", DryRun: preview, Config: cfg,
		StackOutputs: func(p string) (resource.PropertyMap, bool, error) { return refs[p], false, nil }}
	ds, err := program.Run(context.Background(), env, prog)
	if err != nil {
		return deployed{}, err
	}
	d := deployed{types: map[string]string{}, inputs: map[string]resource.PropertyMap{}}
	for i, decl := range ds.List() {
		if !decl.Custom {
			continue
		}
		ins, err := ds.Inputs(i)
		if err != nil {
			return d, fmt.Errorf("%s: %w", decl.Name, err)
		}
		spec, ok := c.Resources[decl.Type]
		if !ok {
			t.Fatalf("%s: the aws provider has no resource type %s", decl.Name, decl.Type)
		}
		for k, v := range ins {
			in, ok := spec.Inputs[k]
			if !ok {
				t.Errorf("%s (%s): the contract lists no input %q", decl.Name, decl.Type, k)
				continue
			}
			if !coarse(v, in.Type) {
				t.Errorf("%s (%s): input %s is %T, not %s", decl.Name, decl.Type, k, v, in.Type)
			}
		}
		for k, in := range spec.Inputs {
			if _, ok := ins[k]; in.Required && !ok {
				t.Errorf("%s (%s): the required input %s is missing", decl.Name, decl.Type, k)
			}
		}
		outs := resource.PropertyMap{}
		for _, k := range spec.Outputs {
			switch v, ok := ins[k]; {
			case ok:
				outs[k] = v
			case preview:
				outs[k] = resource.Computed{}
			default:
				outs[k] = fake(decl.Name, k)
			}
		}
		d.types[decl.Name], d.inputs[decl.Name] = decl.Type, ins
		ds.Finish(i, "id-"+decl.Name, !preview, outs, nil)
	}
	d.outputs, err = ds.Outputs()
	return d, err
}

// fake is a generated output of a fake resource.
func fake(name, key string) any {
	switch key {
	case "arn":
		return "arn:aws:fake::123456789012:" + name
	case "certificateAuthority":
		return map[string]any{"data": "Q0EtREFUQQ=="}
	case "endpoint":
		return "https://" + name + ".eks.example"
	}
	return key + "-of-" + name
}

// coarse reports whether v has the contract's coarse type (unknown and
// secret values are checked by what they hold).
func coarse(v any, typ string) bool {
	if s, ok := v.(resource.Secret); ok {
		v = s.Element
	}
	if _, ok := v.(resource.Computed); ok {
		return true
	}
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return true
}

// ofType returns the names of the resources of type typ, sorted.
func (d deployed) ofType(typ string) []string {
	var out []string
	for n, ty := range d.types {
		if ty == typ {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
		t.Fatalf("error %v, want %q", err, want)
	}
}
