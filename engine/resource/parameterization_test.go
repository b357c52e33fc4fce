package resource

import (
	"reflect"
	"strings"
	"testing"
)

func TestParameterizationOf(t *testing.T) {
	pz := &Parameterization{Base: "terraform-provider", BaseVersion: "1.0.0", Name: "fish", Version: "0.5.0", Value: []byte{0, 1, 2}}
	recorded := PropertyMap{"region": "eu", "version": "1.0.0", internalKey: map[string]any{"pluginDownloadURL": "https://x"}}
	SetParameterization(recorded, pz)
	cases := []struct {
		name    string
		inputs  PropertyMap
		want    *Parameterization
		wantErr string
	}{
		{"recorded", recorded, pz, ""},
		{"not parameterized", PropertyMap{"version": "1.0.0"}, nil, ""},
		{"not base64", PropertyMap{"version": "0.5.0", internalKey: map[string]any{"name": "b", "parameterization": "%%"}}, nil, "not a base64 value"},
		{"no base plugin", PropertyMap{"version": "0.5.0", internalKey: map[string]any{"parameterization": "AAEC"}}, nil, "names no base plugin"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParameterizationOf("pulumi:providers:fish", c.inputs)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("ParameterizationOf = %+v, %v; want an error with %q", got, err, c.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("ParameterizationOf = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
	internal := recorded[internalKey].(map[string]any)
	if recorded["version"] != "0.5.0" || internal["version"] != "1.0.0" || internal["name"] != "terraform-provider" ||
		internal["parameterization"] != "AAEC" || internal["pluginDownloadURL"] != "https://x" {
		t.Errorf("SetParameterization recorded %v", recorded)
	}
}
