package random

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/crypto/bcrypt"

	"github.com/runnerhq/runner/engine/resource"
)

func check(t *testing.T, typ string, news resource.PropertyMap) resource.PropertyMap {
	t.Helper()
	m, err := Plugin{}.Check(context.Background(), resource.CheckRequest{Type: typ, News: news})
	if err != nil {
		t.Fatalf("Check(%v): %v", news, err)
	}
	return m
}

func create(t *testing.T, typ string, news resource.PropertyMap) resource.CreateResponse {
	t.Helper()
	in := check(t, typ, news)
	resp, err := Plugin{}.Create(context.Background(), resource.CreateRequest{Type: typ, Inputs: in})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return resp
}

func TestCheckErrorsNameTheProperty(t *testing.T) {
	tests := []struct {
		typ  string
		news resource.PropertyMap
		want string
	}{
		{StringType, resource.PropertyMap{}, `"length"`},
		{StringType, resource.PropertyMap{"length": 0.0}, `"length"`},
		{StringType, resource.PropertyMap{"length": "x"}, `"length"`},
		{StringType, resource.PropertyMap{"length": 4.0, "minUpper": 3.0, "minLower": 2.0}, `"length"`},
		{StringType, resource.PropertyMap{"length": 4.0, "minSpecial": -1.0}, `"minSpecial"`},
		{StringType, resource.PropertyMap{"length": 4.0, "special": "yes"}, `"special"`},
		{PasswordType, resource.PropertyMap{"length": 4.0, "number": true, "numeric": false}, `"number"`},
		{PasswordType, resource.PropertyMap{"length": 4.0, "special": false, "upper": false, "lower": false, "numeric": false}, `"special"`},
		{StringType, resource.PropertyMap{"length": 4.0, "keepers": "x"}, `"keepers"`},
		{IDType, resource.PropertyMap{}, `"byteLength"`},
		{IDType, resource.PropertyMap{"byteLength": 0.0}, `"byteLength"`},
		{IDType, resource.PropertyMap{"byteLength": 4.0, "prefix": 1.0}, `"prefix"`},
		{IntegerType, resource.PropertyMap{"min": 1.0}, `"max"`},
		{IntegerType, resource.PropertyMap{"min": 5.0, "max": 1.0}, `"min"`},
		{IntegerType, resource.PropertyMap{"min": 1.5, "max": 3.0}, `"min"`},
		{"random:index/nope:Nope", resource.PropertyMap{}, `random:index/nope:Nope`},
	}
	for _, tt := range tests {
		_, err := Plugin{}.Check(context.Background(), resource.CheckRequest{Type: tt.typ, News: tt.news})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%s, %v) = %v, want an error naming %s", tt.typ, tt.news, err, tt.want)
		}
	}
}

func TestCheckToleratesComputed(t *testing.T) {
	for _, tt := range []struct {
		typ  string
		news resource.PropertyMap
	}{
		{StringType, resource.PropertyMap{"length": resource.Computed{}, "minUpper": 3.0}},
		{IDType, resource.PropertyMap{"byteLength": resource.Computed{}}},
		{IntegerType, resource.PropertyMap{"min": 1.0, "max": resource.Computed{}}},
	} {
		check(t, tt.typ, tt.news)
	}
}

func TestStringClassesAndMinimums(t *testing.T) {
	tests := []struct {
		name  string
		news  resource.PropertyMap
		allow func(rune) bool
	}{
		{"lower only", resource.PropertyMap{"length": 40.0, "upper": false, "numeric": false, "special": false}, unicode.IsLower},
		{"digits via number alias", resource.PropertyMap{"length": 40.0, "upper": false, "lower": false, "special": false, "number": true}, unicode.IsDigit},
		{"override special", resource.PropertyMap{"length": 30.0, "upper": false, "lower": false, "numeric": false, "overrideSpecial": "£_"},
			func(r rune) bool { return r == '£' || r == '_' }},
	}
	for _, tt := range tests {
		out := create(t, StringType, tt.news).Outputs["result"].(string)
		if len([]rune(out)) != int(tt.news["length"].(float64)) {
			t.Errorf("%s: result %q has the wrong length", tt.name, out)
		}
		for _, r := range out {
			if !tt.allow(r) {
				t.Errorf("%s: result %q holds %q", tt.name, out, r)
			}
		}
	}
	out := create(t, StringType, resource.PropertyMap{"length": 8.0, "minUpper": 2.0, "minNumeric": 2.0, "minSpecial": 2.0, "minLower": 2.0}).Outputs["result"].(string)
	counts := map[string]int{}
	for _, r := range out {
		switch {
		case unicode.IsUpper(r):
			counts["upper"]++
		case unicode.IsLower(r):
			counts["lower"]++
		case unicode.IsDigit(r):
			counts["digit"]++
		default:
			counts["special"]++
		}
	}
	for _, k := range []string{"upper", "lower", "digit", "special"} {
		if counts[k] != 2 {
			t.Errorf("result %q has %d %s characters, want 2", out, counts[k], k)
		}
	}
}

func TestPasswordIsSecret(t *testing.T) {
	resp := create(t, PasswordType, resource.PropertyMap{"length": 20.0})
	res, ok := resp.Outputs["result"].(resource.Secret)
	if !ok {
		t.Fatalf("result is %T, want a Secret", resp.Outputs["result"])
	}
	pw := res.Element.(string)
	if len(pw) != 20 {
		t.Errorf("password length %d, want 20", len(pw))
	}
	if strings.Contains(resp.ID, pw) {
		t.Errorf("the ID %q holds the password", resp.ID)
	}
	hash, ok := resp.Outputs["bcryptHash"].(resource.Secret)
	if !ok {
		t.Fatalf("bcryptHash is %T, want a Secret", resp.Outputs["bcryptHash"])
	}
	if err := bcrypt.CompareHashAndPassword([]byte(hash.Element.(string)), []byte(pw)); err != nil {
		t.Errorf("bcryptHash does not match the password: %v", err)
	}
}

func TestRandomID(t *testing.T) {
	resp := create(t, IDType, resource.PropertyMap{"byteLength": 8.0, "prefix": "p-"})
	h := resp.Outputs["hex"].(string)
	if !strings.HasPrefix(h, "p-") || len(h) != 2+16 {
		t.Errorf("hex = %q", h)
	}
	if _, err := hex.DecodeString(h[2:]); err != nil {
		t.Errorf("hex %q: %v", h, err)
	}
	if resp.Outputs["b64Url"] != "p-"+resp.ID {
		t.Errorf("b64Url %q, ID %q", resp.Outputs["b64Url"], resp.ID)
	}
	for _, k := range []string{"b64Std", "dec"} {
		if s, _ := resp.Outputs[k].(string); !strings.HasPrefix(s, "p-") || len(s) < 3 {
			t.Errorf("%s = %q", k, s)
		}
	}
}

func TestRandomInteger(t *testing.T) {
	seen := map[float64]bool{}
	for range 50 {
		resp := create(t, IntegerType, resource.PropertyMap{"min": 3.0, "max": 5.0})
		n := resp.Outputs["result"].(float64)
		if n < 3 || n > 5 {
			t.Fatalf("result %v is outside [3, 5]", n)
		}
		seen[n] = true
	}
	if len(seen) < 2 {
		t.Errorf("50 draws in [3, 5] gave only %v", seen)
	}
	a := create(t, IntegerType, resource.PropertyMap{"min": 0.0, "max": 1e9, "seed": "s"})
	b := create(t, IntegerType, resource.PropertyMap{"min": 0.0, "max": 1e9, "seed": "s"})
	if a.ID != b.ID {
		t.Errorf("the same seed gave %s and %s", a.ID, b.ID)
	}
}

func TestPreviewIsUnknown(t *testing.T) {
	tests := []struct {
		typ  string
		news resource.PropertyMap
		key  string
	}{
		{StringType, resource.PropertyMap{"length": 4.0}, "result"},
		{PasswordType, resource.PropertyMap{"length": 4.0}, "result"},
		{IDType, resource.PropertyMap{"byteLength": 4.0}, "hex"},
		{IntegerType, resource.PropertyMap{"min": 1.0, "max": 2.0}, "result"},
	}
	for _, tt := range tests {
		in := check(t, tt.typ, tt.news)
		resp, err := Plugin{}.Create(context.Background(), resource.CreateRequest{Type: tt.typ, Inputs: in, Preview: true})
		if err != nil {
			t.Fatal(err)
		}
		if !resource.ContainsComputed(resp.Outputs[tt.key]) || resp.ID != "" {
			t.Errorf("%s preview: %s = %v, ID %q", tt.typ, tt.key, resp.Outputs[tt.key], resp.ID)
		}
		if tt.typ == PasswordType && !resp.Outputs.IsSecret("result") {
			t.Errorf("preview password result is not secret")
		}
	}
}

func TestDiffReplacesEveryChange(t *testing.T) {
	olds := check(t, StringType, resource.PropertyMap{"length": 4.0, "keepers": map[string]any{"a": "1"}})
	tests := []struct {
		news   resource.PropertyMap
		ignore []string
		want   []string
	}{
		{resource.PropertyMap{"length": 4.0, "keepers": map[string]any{"a": "1"}}, nil, nil},
		{resource.PropertyMap{"length": 4.0, "keepers": map[string]any{"a": "2"}}, nil, []string{"keepers"}},
		{resource.PropertyMap{"length": 4.0, "keepers": map[string]any{"a": resource.Computed{}}}, nil, []string{"keepers"}},
		{resource.PropertyMap{"length": 5.0, "keepers": map[string]any{"a": "2"}}, []string{"keepers"}, []string{"length"}},
	}
	for _, tt := range tests {
		news := check(t, StringType, tt.news)
		d, err := Plugin{}.Diff(context.Background(), resource.DiffRequest{Type: StringType, OldInputs: olds, NewInputs: news, IgnoreChanges: tt.ignore})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(d.Replaces, ",") != strings.Join(tt.want, ",") || strings.Join(d.Changed, ",") != strings.Join(tt.want, ",") {
			t.Errorf("Diff(%v) = %+v, want replaces %v", tt.news, d, tt.want)
		}
	}
}

func TestReadReturnsStateOrNothing(t *testing.T) {
	resp := create(t, StringType, resource.PropertyMap{"length": 4.0})
	got, err := Plugin{}.Read(context.Background(), resource.ReadRequest{Type: StringType, ID: resp.ID, Outputs: resp.Outputs})
	if err != nil || got.ID != resp.ID || got.Outputs["result"] != resp.Outputs["result"] {
		t.Errorf("Read = %+v, %v", got, err)
	}
	got, err = Plugin{}.Read(context.Background(), resource.ReadRequest{Type: StringType})
	if err != nil || got.ID != "" {
		t.Errorf("Read without ID = %+v, %v; want not found", got, err)
	}
}
