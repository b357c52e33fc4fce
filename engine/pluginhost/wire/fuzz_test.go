package wire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

// fromJSON turns decoded JSON into property values, with markers for the
// special ones: {"$secret": v} is a secret, "$unknown" an unknown value,
// "$asset:text" a text asset and "$ref:urn" a reference with an ID.
func fromJSON(v any) any {
	return resource.Map(v, func(x any) (any, bool) {
		switch y := x.(type) {
		case string:
			switch {
			case y == "$unknown":
				return resource.Computed{}, true
			case strings.HasPrefix(y, "$asset:"):
				return resource.NewTextAsset(y[len("$asset:"):]), true
			case strings.HasPrefix(y, "$ref:") && len(y) > len("$ref:"):
				return resource.ResourceReference{URN: resource.URN(y[len("$ref:"):]), ID: "id"}, true
			}
		case map[string]any:
			if e, ok := y["$secret"]; ok && len(y) == 1 {
				return resource.Secret{Element: fromJSON(e)}, true
			}
		}
		return nil, false
	})
}

// FuzzRoundTrip checks that Marshal then Unmarshal, keeping unknowns,
// secrets and resources, gives back the map it started from.
func FuzzRoundTrip(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"a": 1, "b": [true, null, "x"], "c": {"d": {"$secret": [1, "$unknown"]}}}`,
		`{"code": "$asset:print(1)", "empty": "$asset:", "r": "$ref:urn:pulumi:s::p::t::n", "l": [{"$secret": {"$secret": "x"}}]}`,
		`{"": "", "n": -0.5e300, "u": "$unknown", "m": {"k": []}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc map[string]any
		if json.Unmarshal(data, &doc) != nil || strings.Contains(string(data), SigKey) || containsSentinel(doc) {
			return
		}
		in := resource.PropertyMap(fromJSON(doc).(map[string]any))
		s, err := Marshal(in, keep)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		out, err := Unmarshal(s, keep)
		if err != nil {
			t.Fatalf("Unmarshal: %v", err)
		}
		if !reflect.DeepEqual(out, in) {
			t.Fatalf("round trip changed\n%#v\nto\n%#v", in, out)
		}
	})
}

func containsSentinel(v any) bool {
	return !resource.Walk(v, func(x any, _ bool) bool {
		s, ok := x.(string)
		return !ok || !IsUnknownSentinel(s)
	})
}
