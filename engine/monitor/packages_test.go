package monitor

import (
	"context"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

func TestRegisterPackage(t *testing.T) {
	param := func(name, version, value string) *pulumirpc.Parameterization {
		return &pulumirpc.Parameterization{Name: name, Version: version, Value: []byte(value)}
	}
	cases := []struct {
		name    string
		req     *pulumirpc.RegisterPackageRequest
		wantErr string
		sameAs  int // index of an earlier case whose reference this one gets (-1: a new one)
	}{
		{"plain", &pulumirpc.RegisterPackageRequest{Name: "aws", Version: "6.0.0"}, "", -1},
		{"parameterized", &pulumirpc.RegisterPackageRequest{Name: "tf", Version: "1.0.0", Parameterization: param("fish", "0.5.0", "a")}, "", -1},
		{"again", &pulumirpc.RegisterPackageRequest{Name: "tf", Version: "1.0.0", Parameterization: param("fish", "0.5.0", "a")}, "", 1},
		{"other value", &pulumirpc.RegisterPackageRequest{Name: "tf", Version: "1.0.0", Parameterization: param("fish", "0.5.0", "b")}, "package fish is registered twice, differently", -1},
		{"other package", &pulumirpc.RegisterPackageRequest{Name: "tf", Version: "1.0.0", Parameterization: param("cat", "0.5.0", "b")}, "", -1},
		{"other base", &pulumirpc.RegisterPackageRequest{Name: "tf2", Version: "1.0.0", Parameterization: param("cat", "0.5.0", "b")}, "package cat is registered twice", -1},
		{"no name", &pulumirpc.RegisterPackageRequest{Version: "1.0.0"}, "needs the plugin's name", -1},
		{"bad version", &pulumirpc.RegisterPackageRequest{Name: "tf", Version: "latest"}, "latest is not a semantic version", -1},
		{"bad parameter version", &pulumirpc.RegisterPackageRequest{Name: "tf", Parameterization: param("fish", "1", "a")}, "needs a name and a semantic version", -1},
		{"extension", &pulumirpc.RegisterPackageRequest{Name: "tf", Extension: param("x", "1.0.0", "a")}, "extension packages are not supported", -1},
	}
	m := &monitor{}
	refs := make([]string, len(cases))
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := m.RegisterPackage(context.Background(), c.req)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("RegisterPackage = %v, %v; want an error with %q", resp, err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			refs[i] = resp.GetRef()
			for j := range i {
				if same := refs[j] == refs[i]; same != (j == c.sameAs) {
					t.Errorf("reference %q; case %q's is %q", refs[i], cases[j].name, refs[j])
				}
			}
			p, err := m.pkgRef("x", refs[i])
			if err != nil || p.name != c.req.GetName() || (p.pz != nil) != (c.req.GetParameterization() != nil) {
				t.Errorf("the reference resolves to %+v, %v", p, err)
			}
		})
	}
}
