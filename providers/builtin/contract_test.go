package builtin

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

// contractPlugin stands for a Pulumi plugin (aws) in the edges test: it
// accepts any inputs and, in preview, predicts every output that the
// contract of Pulumi's provider lists as unknown, as the real plugin does.
type contractPlugin struct {
	pkg     string
	outputs map[string][]string // type token -> output names
}

// loadContract reads the outputs of a provider contract (testdata of the
// projects that use it).
func loadContract(t *testing.T, pkg, path string) *contractPlugin {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Resources map[string]struct {
			Outputs []string `json:"outputs"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	p := &contractPlugin{pkg: pkg, outputs: map[string][]string{}}
	for typ, r := range c.Resources {
		p.outputs[typ] = r.Outputs
	}
	return p
}

func (p *contractPlugin) Package() string { return p.pkg }

func (p *contractPlugin) Check(_ context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	return req.News, nil
}

func (p *contractPlugin) Diff(context.Context, resource.DiffRequest) (resource.DiffResponse, error) {
	return resource.DiffResponse{}, nil
}

func (p *contractPlugin) Create(_ context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	outs := resource.PropertyMap{}
	for _, k := range p.outputs[req.Type] {
		outs[k] = resource.Computed{}
	}
	for k, v := range req.Inputs {
		outs[k] = v
	}
	return resource.CreateResponse{Outputs: outs}, nil
}

func (p *contractPlugin) Read(_ context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
	return resource.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: req.Outputs}, nil
}

func (p *contractPlugin) Update(_ context.Context, req resource.UpdateRequest) (resource.UpdateResponse, error) {
	return resource.UpdateResponse{Outputs: req.NewInputs}, nil
}

func (p *contractPlugin) Delete(context.Context, resource.DeleteRequest) error { return nil }
