package runstate

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultProviderName names the default provider of a plugin of the given
// version as Pulumi does: "default_1_2_3", with the pre-release and build
// identifiers appended ("default_1_2_3_alpha_1"), or "default" when the
// version is not known.
func DefaultProviderName(version string) (string, error) {
	if version == "" {
		return "default", nil
	}
	v := strings.TrimPrefix(version, "v")
	var build, pre []string
	if i := strings.IndexByte(v, '+'); i >= 0 {
		build, v = strings.Split(v[i+1:], "."), v[:i]
	}
	if i := strings.IndexByte(v, '-'); i >= 0 {
		pre, v = strings.Split(v[i+1:], "."), v[:i]
	}
	core := strings.Split(v, ".")
	bad := fmt.Errorf("its version %q is not a semantic version (major.minor.patch)", version)
	if len(core) > 3 {
		return "", bad
	}
	name := "default"
	for i := range 3 {
		n := uint64(0)
		if i < len(core) {
			var err error
			if n, err = strconv.ParseUint(core[i], 10, 64); err != nil {
				return "", bad
			}
		}
		name += "_" + strconv.FormatUint(n, 10)
	}
	for _, id := range append(pre, build...) {
		if id == "" || strings.ContainsAny(id, ":/ ") {
			return "", bad
		}
		name += "_" + id
	}
	return name, nil
}
