package plan_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
)

func TestChangedPaths(t *testing.T) {
	tests := []struct {
		name       string
		olds, news resource.PropertyMap
		keys       []string
		want       []string
	}{
		{"none", resource.PropertyMap{"a": 1.0}, resource.PropertyMap{"a": 2.0}, nil, nil},
		{"scalar", resource.PropertyMap{"port": 1.0}, resource.PropertyMap{"port": 2.0}, []string{"port"}, []string{"port"}},
		{"nested", resource.PropertyMap{"tags": map[string]any{"env": "dev", "x": "1"}}, resource.PropertyMap{"tags": map[string]any{"env": "prod", "x": "1"}}, []string{"tags"}, []string{"tags.env"}},
		{"list", resource.PropertyMap{"items": []any{"a", "b"}}, resource.PropertyMap{"items": []any{"a", "c"}}, []string{"items"}, []string{"items[1]"}},
		{"added key", resource.PropertyMap{}, resource.PropertyMap{"new": "v"}, []string{"new"}, []string{"new"}},
		{"quoted", resource.PropertyMap{"a.b": 1.0}, resource.PropertyMap{"a.b": 2.0}, []string{"a.b"}, []string{`["a.b"]`}},
		{"secret", resource.PropertyMap{"s": resource.Secret{Element: map[string]any{"k": "1"}}}, resource.PropertyMap{"s": resource.Secret{Element: map[string]any{"k": "2"}}}, []string{"s"}, []string{"s"}},
		// The keys inside a secret are secret too: the path ends at it.
		{"secret keys", resource.PropertyMap{"env": resource.Secret{Element: map[string]any{"DB_PASSWORD_hunter2": "x"}}}, resource.PropertyMap{"env": resource.Secret{Element: map[string]any{"DB_PASSWORD_s3cr3t": "x"}}}, []string{"env"}, []string{"env"}},
		{"secret unchanged", resource.PropertyMap{"s": resource.Secret{Element: map[string]any{"k": "1"}}}, resource.PropertyMap{"s": resource.Secret{Element: map[string]any{"k": "1"}}, "b": 1.0}, []string{"b"}, []string{"b"}},
		{"equal values", resource.PropertyMap{"a": 1.0}, resource.PropertyMap{"a": 1.0}, []string{"a"}, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := plan.ChangedPaths(tt.olds, tt.news, tt.keys); !slices.Equal(got, tt.want) {
				t.Errorf("ChangedPaths = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIndexCheck(t *testing.T) {
	urn := resource.NewURN("dev", "p", "", "test:index:Thing", "a")
	p := &plan.Plan{Project: "p", Steps: []plan.Step{{Op: plan.OpUpdate, URN: urn, NewInputs: resource.PropertyMap{"n": resource.Computed{}}}}}
	tests := []struct {
		name string
		step plan.Step
		ok   bool
	}{
		{"planned", plan.Step{Op: plan.OpUpdate, URN: urn, NewInputs: resource.PropertyMap{"n": 2}}, true},
		{"same after unknowns", plan.Step{Op: plan.OpSame, URN: urn, NewInputs: resource.PropertyMap{"n": 1}}, true},
		{"other op", plan.Step{Op: plan.OpReplace, URN: urn, NewInputs: resource.PropertyMap{"n": 2}}, false},
		{"extra input", plan.Step{Op: plan.OpUpdate, URN: urn, NewInputs: resource.PropertyMap{"n": 2, "m": 1}}, false},
		{"not planned", plan.Step{Op: plan.OpCreate, URN: urn + "x"}, false},
	}
	x := plan.NewIndex(p)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := x.Check(&tt.step)
			if (err == nil) != tt.ok {
				t.Fatalf("Check = %v, want ok %v", err, tt.ok)
			}
			if _, isMismatch := err.(*plan.MismatchError); err != nil && !isMismatch {
				t.Errorf("Check returned %T, want a *plan.MismatchError", err)
			}
		})
	}
	if err := (*plan.Index)(nil).Check(&tests[2].step); err != nil {
		t.Errorf("a nil Index refused a step: %v", err)
	}
}

// A step whose secret input differs from the planned one is refused naming
// the secret's path only, never a key inside it.
func TestIndexCheckHidesSecretKeys(t *testing.T) {
	urn := resource.NewURN("dev", "p", "", "test:index:Thing", "a")
	planned := resource.PropertyMap{"env": resource.Secret{Element: map[string]any{"DB_PASSWORD_hunter2": "x"}}}
	x := plan.NewIndex(&plan.Plan{Project: "p", Steps: []plan.Step{{Op: plan.OpUpdate, URN: urn, NewInputs: planned}}})
	err := x.Check(&plan.Step{Op: plan.OpUpdate, URN: urn, NewInputs: resource.PropertyMap{"env": resource.Secret{Element: map[string]any{"DB_PASSWORD_s3cr3t": "x"}}}})
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "env") {
		t.Fatalf("Check = %v, want a refusal naming env and no key inside it", err)
	}
}

// A plan made while a referenced resource had no ID yet accepts the ID it
// got; assets compare by hash.
func TestIndexCheckAssetsAndReferences(t *testing.T) {
	urn := resource.NewURN("dev", "p", "", "test:index:Thing", "a")
	dep := resource.NewURN("dev", "p", "", "test:index:Thing", "dep")
	code := resource.NewTextAsset("print(1)")
	p := &plan.Plan{Project: "p", Steps: []plan.Step{{Op: plan.OpCreate, URN: urn, NewInputs: resource.PropertyMap{
		"ref": resource.ResourceReference{URN: dep, ID: resource.Computed{}}, "code": code, "fixed": resource.ResourceReference{URN: dep, ID: "id-1"},
	}}}}
	tests := []struct {
		name   string
		inputs resource.PropertyMap
		ok     bool
	}{
		{"as planned", resource.PropertyMap{"ref": resource.ResourceReference{URN: dep, ID: "id-9"}, "code": resource.Asset{Hash: code.Hash}, "fixed": resource.ResourceReference{URN: dep, ID: "id-1"}}, true},
		{"other resource", resource.PropertyMap{"ref": resource.ResourceReference{URN: urn, ID: "id-9"}, "code": code, "fixed": resource.ResourceReference{URN: dep, ID: "id-1"}}, false},
		{"other code", resource.PropertyMap{"ref": resource.ResourceReference{URN: dep, ID: "id-9"}, "code": resource.NewTextAsset("print(2)"), "fixed": resource.ResourceReference{URN: dep, ID: "id-1"}}, false},
		{"other known ID", resource.PropertyMap{"ref": resource.ResourceReference{URN: dep, ID: "id-9"}, "code": code, "fixed": resource.ResourceReference{URN: dep, ID: "id-2"}}, false},
	}
	x := plan.NewIndex(p)
	for _, tt := range tests {
		if err := x.Check(&plan.Step{Op: plan.OpCreate, URN: urn, NewInputs: tt.inputs}); (err == nil) != tt.ok {
			t.Errorf("%s: Check = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

// TestUncheckedStepAcceptsWhatCheckAdds: a step planned without the
// plugin's Check (its provider's configuration unknown in the preview)
// accepts the properties Check adds, at any depth, and still refuses a
// planned value that changed.
func TestUncheckedStepAcceptsWhatCheckAdds(t *testing.T) {
	planned := resource.PropertyMap{"metadata": map[string]any{"namespace": "ns"}, "spec": "x"}
	checked := resource.PropertyMap{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"namespace": "ns", "name": "cm-1a2b3c4"}, "spec": "x"}
	changed := resource.PropertyMap{"apiVersion": "v1", "metadata": map[string]any{"namespace": "other"}, "spec": "x"}
	urn := resource.URN("urn:pulumi:dev::p::kubernetes:core/v1:ConfigMap::cm")
	for _, tt := range []struct {
		name      string
		unchecked bool
		actual    resource.PropertyMap
		ok        bool
	}{
		{"unchecked, Check's defaults", true, checked, true},
		{"unchecked, a planned value changed", true, changed, false},
		{"checked, Check's defaults are a difference", false, checked, false},
	} {
		x := plan.NewIndex(&plan.Plan{Project: "p", Stack: "dev", Steps: []plan.Step{{Op: plan.OpCreate, URN: urn, NewInputs: planned, Unchecked: tt.unchecked}}})
		err := x.Check(&plan.Step{Op: plan.OpCreate, URN: urn, NewInputs: tt.actual})
		if (err == nil) != tt.ok {
			t.Errorf("%s: Check = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

// The mark @pulumi/pulumi puts on an exported resource in a preview only
// is not compared with the up's outputs; other differences still count.
func TestCheckOutputsIgnoresResourceMarks(t *testing.T) {
	planned := resource.PropertyMap{"thing": map[string]any{"@isPulumiResource": true, "urn": "u", "id": resource.Computed{},
		"inner": []any{map[string]any{"@isPulumiResource": true, "urn": "v"}}}}
	x := plan.NewIndex(&plan.Plan{Project: "p", Outputs: planned})
	if err := x.CheckOutputs(resource.PropertyMap{"thing": map[string]any{"urn": "u", "id": "i-1", "inner": []any{map[string]any{"urn": "v"}}}}); err != nil {
		t.Errorf("the up's exported resource was refused: %v", err)
	}
	if err := x.CheckOutputs(resource.PropertyMap{"thing": map[string]any{"urn": "w", "id": "i-1", "inner": []any{map[string]any{"urn": "v"}}}}); err == nil {
		t.Error("another resource's URN was accepted")
	}
}
