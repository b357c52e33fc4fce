package providers

import (
	"fmt"
	"strconv"

	"github.com/runnerhq/runner/engine/resource"
)

// OneID returns the ID of the only object of the list result[key] (a
// cloud function's matches, such as getRecords' records): "" when the
// list is empty or absent, an error naming what when it holds more than
// one (no run can tell which it made) or an item has no ID. Numeric IDs
// (Linode's, a DNS record's) are given as their decimal text, as the
// plugins' resources have them.
func OneID(result resource.PropertyMap, key, what string) (string, error) {
	v, _ := resource.Unsecret(result[key])
	list, ok := v.([]any)
	if v != nil && !ok {
		return "", fmt.Errorf("the result's %s is not a list", key)
	}
	switch len(list) {
	case 0:
		return "", nil
	case 1:
	default:
		return "", fmt.Errorf("%d %s match, so which one this stack made cannot be told; delete those it did not make, then run up again", len(list), what)
	}
	item := ObjectOf(list[0])
	id, ok := IDText(item["id"])
	if !ok {
		return "", fmt.Errorf("the %s found has no ID", what)
	}
	return id, nil
}

// IDText returns a function result's ID as text: a string as it is, a
// whole number in decimal.
func IDText(v any) (string, bool) {
	v, _ = resource.Unsecret(v)
	switch x := v.(type) {
	case string:
		return x, x != ""
	case float64:
		if x == float64(int64(x)) && x > 0 {
			return strconv.FormatInt(int64(x), 10), true
		}
	case int:
		return strconv.Itoa(x), x > 0
	case int64:
		return strconv.FormatInt(x, 10), x > 0
	}
	return "", false
}

// ObjectOf returns the object v (an item of a function's result; nil when
// v is not one).
func ObjectOf(v any) resource.PropertyMap {
	v, _ = resource.Unsecret(v)
	switch m := v.(type) {
	case map[string]any:
		return m
	case resource.PropertyMap:
		return m
	}
	return nil
}

// Plain returns the known string input key of inputs ("" when it is not
// one).
func Plain(inputs resource.PropertyMap, key string) string {
	s, err := inputs.String(key, "")
	if err != nil {
		return ""
	}
	return s
}

// SameRegion returns an error naming what when the region of a found
// resource (its result's "region") is known and is not want: a resource
// of the same name elsewhere is not the one an interrupted create made.
func SameRegion(found resource.PropertyMap, want, what string) error {
	got := Plain(found, "region")
	if got == "" || want == "" || got == want {
		return nil
	}
	return fmt.Errorf("%s exists in region %s, not %s, so it is not the one this stack was making; delete or rename it (or change the region back), then run up again", what, got, want)
}
