package linode

import (
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

func TestLookup(t *testing.T) {
	l, ok := lookup("linode:index/lkeCluster:LkeCluster", resource.PropertyMap{"label": "mara-dev", "region": "us-central"})
	if !ok || l.Token != "linode:index/getLkeClusters:getLkeClusters" {
		t.Fatalf("the LKE cluster's lookup is %+v, %v", l, ok)
	}
	f := l.Args["filters"].([]any)[0].(map[string]any)
	if f["name"] != "label" || f["values"].([]any)[0] != "mara-dev" {
		t.Errorf("the filter is %v, want the label mara-dev", f)
	}
	if id, err := l.Found(resource.PropertyMap{"lkeClusters": []any{map[string]any{"id": 201534.0, "label": "mara-dev", "region": "us-central"}}}); id != "201534" || err != nil {
		t.Errorf("Found = %q, %v; want 201534", id, err)
	}
	if _, err := l.Found(resource.PropertyMap{"lkeClusters": []any{map[string]any{"id": 201534.0, "label": "mara-dev", "region": "eu-west"}}}); err == nil ||
		!strings.Contains(err.Error(), "exists in region eu-west, not us-central") {
		t.Errorf("a cluster of that label in another region is adopted: %v", err)
	}
	if id, err := l.Found(resource.PropertyMap{"lkeClusters": []any{}}); id != "" || err != nil {
		t.Errorf("Found of none = %q, %v", id, err)
	}
	if _, ok := lookup("linode:index/lkeCluster:LkeCluster", resource.PropertyMap{}); ok {
		t.Error("a cluster without a label is looked up")
	}
	if _, ok := lookup("linode:index/lkeNodePool:LkeNodePool", resource.PropertyMap{"label": "x"}); ok {
		t.Error("another type is looked up")
	}
}
