package state

import (
	"fmt"
	"sort"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
)

// Describe names r for a person who must find it in the cloud by hand: its
// type and name, with what its inputs say that a console searches by: the
// name it is given there (a "name" input, or Kubernetes' metadata.name),
// its namespace, and its tags. Secret values are not shown.
func (r *Resource) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q", r.Type, r.URN.Name())
	meta := plainMap(r.Inputs["metadata"])
	name := plainString(r.Inputs["name"])
	if n := plainString(meta["name"]); n != "" {
		name = n
	}
	if name != "" && name != r.URN.Name() {
		fmt.Fprintf(&b, " named %q", name)
	}
	ns := plainString(r.Inputs["namespace"])
	if n := plainString(meta["namespace"]); n != "" {
		ns = n
	}
	if ns != "" {
		fmt.Fprintf(&b, " in namespace %q", ns)
	}
	if tags := plainMap(r.Inputs["tags"]); len(tags) > 0 {
		var kv []string
		for k, v := range tags {
			if s := plainString(v); s != "" {
				kv = append(kv, k+"="+s)
			}
		}
		sort.Strings(kv)
		fmt.Fprintf(&b, " tagged %s", strings.Join(kv, ", "))
	}
	return b.String()
}

// plainString returns v when it is a string that is not secret ("" else).
func plainString(v any) string {
	s, _ := v.(string)
	return s
}

// plainMap returns v when it is an object that is not secret (nil else).
func plainMap(v any) map[string]any {
	switch m := v.(type) {
	case map[string]any:
		return m
	case resource.PropertyMap:
		return m
	}
	return nil
}
