package plugins

import (
	"context"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
)

// TestCustomResources: cert-manager's ClusterIssuer is checked as the
// SDK's CustomResource (spec required, apiVersion and kind filled), is
// cluster-scoped, and is refused until cert-manager's chart is installed.
func TestCustomResources(t *testing.T) {
	cleanEnv(t)
	p, err := configure(t, "kubernetes", map[string]string{"kubeconfig": testKubeconfig})
	if err != nil {
		t.Fatal(err)
	}
	s := resource.NewStringProperty
	const typ = "kubernetes:cert-manager.io/v1:ClusterIssuer"
	meta := resource.NewObjectProperty(resource.PropertyMap{"name": s("le")})
	checked, err := p.Check(context.Background(), plugin.CheckRequest{URN: urnOf(typ, "bad"), Name: "bad", Type: typ,
		News: resource.PropertyMap{"metadata": meta, "data": s("x")}})
	if err != nil || len(checked.Failures) != 2 {
		t.Errorf("Check of a ClusterIssuer with data and no spec: %v, failures %v; want 2", err, checked.Failures)
	}
	ins := resource.PropertyMap{"metadata": meta, "spec": resource.NewObjectProperty(resource.PropertyMap{"acme": resource.NewObjectProperty(resource.PropertyMap{})})}
	checked, err = p.Check(context.Background(), plugin.CheckRequest{URN: urnOf(typ, "le"), Name: "le", Type: typ, News: ins})
	if err != nil || len(checked.Failures) != 0 || str(checked.Properties, "apiVersion") != "cert-manager.io/v1" || str(checked.Properties, "kind") != "ClusterIssuer" {
		t.Fatalf("Check of a ClusterIssuer: %v %v %v", err, checked.Failures, checked.Properties)
	}
	_, err = p.Create(context.Background(), plugin.CreateRequest{URN: urnOf(typ, "le"), Type: typ, Properties: checked.Properties})
	if err == nil || !strings.Contains(err.Error(), `no matches for kind "ClusterIssuer"`) {
		t.Errorf("Create of a ClusterIssuer before cert-manager: %v, want no matches for kind", err)
	}
	checkCreate(t, p, releaseType, "certmgr", resource.PropertyMap{"chart": s("cert-manager"), "version": s("v1.19.0")}, false)
	if _, made := checkCreate(t, p, typ, "le", ins, false); made.ID != "le" {
		t.Errorf("the ClusterIssuer's ID is %q, want its name le (cluster-scoped)", made.ID)
	}
}
