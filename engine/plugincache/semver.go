package plugincache

import (
	"fmt"
	"strconv"
	"strings"
)

// semver is a parsed semantic version (semver.org 2.0.0); build metadata
// is kept for printing but has no part in comparisons.
type semver struct {
	major, minor, patch uint64
	pre                 []string // dot-separated pre-release identifiers
	raw                 string   // as parsed, without a leading "v"
}

// parseVersion parses s ("1.2.3", "1.2.3-alpha.1+build", a leading "v"
// allowed).
func parseVersion(s string) (semver, error) {
	raw := strings.TrimPrefix(s, "v")
	v := semver{raw: raw}
	rest, _, _ := strings.Cut(raw, "+")
	core, pre, hasPre := strings.Cut(rest, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return semver{}, fmt.Errorf("%q is not a semantic version such as 1.2.3", s)
	}
	nums := []*uint64{&v.major, &v.minor, &v.patch}
	for i, p := range parts {
		n, err := numeric(p)
		if err != nil {
			return semver{}, fmt.Errorf("%q is not a semantic version such as 1.2.3: %w", s, err)
		}
		*nums[i] = n
	}
	if hasPre {
		v.pre = strings.Split(pre, ".")
		for _, id := range v.pre {
			if id == "" || strings.Trim(id, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") != "" {
				return semver{}, fmt.Errorf("%q is not a semantic version: bad pre-release %q", s, pre)
			}
		}
	}
	return v, nil
}

// numeric parses a numeric identifier: digits, no leading zero.
func numeric(p string) (uint64, error) {
	if p == "" || (len(p) > 1 && p[0] == '0') {
		return 0, fmt.Errorf("bad number %q", p)
	}
	return strconv.ParseUint(p, 10, 64)
}

// String returns the version as parsed, without a leading "v".
func (v semver) String() string { return v.raw }

// stable reports whether v has no pre-release part.
func (v semver) stable() bool { return len(v.pre) == 0 }

// compare returns -1, 0 or 1 as v is lower than, equal to or higher than
// w in semver precedence.
func (v semver) compare(w semver) int {
	for _, p := range [][2]uint64{{v.major, w.major}, {v.minor, w.minor}, {v.patch, w.patch}} {
		if c := cmpUint(p[0], p[1]); c != 0 {
			return c
		}
	}
	switch {
	case len(v.pre) == 0 && len(w.pre) == 0:
		return 0
	case len(v.pre) == 0:
		return 1 // a release is higher than its pre-releases
	case len(w.pre) == 0:
		return -1
	}
	for i := 0; i < len(v.pre) && i < len(w.pre); i++ {
		if c := comparePre(v.pre[i], w.pre[i]); c != 0 {
			return c
		}
	}
	return cmpUint(uint64(len(v.pre)), uint64(len(w.pre)))
}

// CompareVersions compares two semantic versions ("1.2.3",
// "v1.2.3-beta.10"): -1, 0 or 1 as a is lower than, equal to or higher
// than b in semver precedence (pre-release identifiers numerically where
// numbers). A version that does not parse is an error.
func CompareVersions(a, b string) (int, error) {
	va, err := parseVersion(a)
	if err != nil {
		return 0, err
	}
	vb, err := parseVersion(b)
	if err != nil {
		return 0, err
	}
	return va.compare(vb), nil
}

// comparePre compares two pre-release identifiers: numbers numerically and
// below words, words in ASCII order.
func comparePre(a, b string) int {
	na, errA := strconv.ParseUint(a, 10, 64)
	nb, errB := strconv.ParseUint(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return cmpUint(na, nb)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
