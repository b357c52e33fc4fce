package config

import (
	"fmt"
	"strconv"
	"strings"
)

// segment is one step of a --path key: a map key or a list index.
type segment struct {
	key   string
	index int
	isIdx bool
}

// parsePath splits a --path key such as `app:data.nums[0]` or
// `app:data["a.b"]` into its top-level config key and the steps below it.
func parsePath(path string) (string, []segment, error) {
	colon := strings.Index(path, ":")
	if colon < 0 {
		return "", nil, fmt.Errorf("the key %q has no namespace; write it as namespace:key", path)
	}
	i := colon + 1
	for i < len(path) && path[i] != '.' && path[i] != '[' {
		i++
	}
	top, rest := path[:i], path[i:]
	if top == path[:colon+1] {
		return "", nil, fmt.Errorf("the key %q has an empty name after its namespace", path)
	}
	var segs []segment
	for rest != "" {
		switch {
		case rest[0] == '.':
			j := 1
			for j < len(rest) && rest[j] != '.' && rest[j] != '[' {
				j++
			}
			if j == 1 {
				return "", nil, fmt.Errorf("the path %q has an empty name after a dot", path)
			}
			segs = append(segs, segment{key: rest[1:j]})
			rest = rest[j:]
		case strings.HasPrefix(rest, `["`):
			end := strings.Index(rest[2:], `"]`)
			if end < 0 {
				return "", nil, fmt.Errorf(`the path %q opens [" without closing "]`, path)
			}
			segs = append(segs, segment{key: rest[2 : 2+end]})
			rest = rest[2+end+2:]
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return "", nil, fmt.Errorf("the path %q opens [ without closing ]", path)
			}
			n, err := strconv.Atoi(rest[1:end])
			if err != nil || n < 0 {
				return "", nil, fmt.Errorf("the path %q has %q where a list index (a number) belongs", path, rest[1:end])
			}
			segs = append(segs, segment{index: n, isIdx: true})
			rest = rest[end+1:]
		default:
			return "", nil, fmt.Errorf("the path %q cannot be read at %q", path, rest)
		}
	}
	return top, segs, nil
}
