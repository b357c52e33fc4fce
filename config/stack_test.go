package config

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/internal/testenv"
)

var ctx = context.Background()

// testIterations is the PBKDF2 iteration count of the tests' crypters: a
// thousandth of the default, for speed.
const testIterations = 1000

func fastCrypter(t *testing.T) *Crypter {
	t.Helper()
	c, err := NewCrypter("pass", WithIterations(testIterations))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const sample = `# The dev stack.
encryptionsalt: v1:AAAAAAAAAAA=:v1:x:y
config:
  # Where to deploy.
  aws:region: us-east-1 # the region
  eks:min_size: 3
  vpc:azs:
    - us-west-1a
    - us-west-1b
  app:data:
    nums: [1, 2]
    "a.b": x
`

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "Pulumi.dev.yaml")
	if err := os.WriteFile(p, []byte(body), 0o640); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRoundTripKeepsCommentsOrderAndMode(t *testing.T) {
	p := write(t, sample)
	s, err := LoadStack(p)
	if err != nil {
		t.Fatal(err)
	}
	c := fastCrypter(t)
	if err := s.Set(ctx, "app:port", "8443", false, false, c); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, "eks:min_size", "4", false, false, c); err != nil {
		t.Fatal(err)
	}
	if err := s.save(); err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(p)
	text := string(out)
	for _, want := range []string{"# The dev stack.", "# Where to deploy.", "# the region", `eks:min_size: "4"`, `app:port: "8443"`} {
		if !strings.Contains(text, want) {
			t.Errorf("saved file lacks %q:\n%s", want, text)
		}
	}
	order := []string{"aws:region", "eks:min_size", "vpc:azs", "app:data", "app:port"}
	last := -1
	for _, k := range order {
		i := strings.Index(text, k)
		if i < last {
			t.Fatalf("key order changed:\n%s", text)
		}
		last = i
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want 0640", st.Mode().Perm())
	}
	again, err := LoadStack(p)
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := again.String(ctx, "eks:min_size", nil); v != "4" {
		t.Fatalf("eks:min_size = %q", v)
	}
}

func TestSecrets(t *testing.T) {
	p := write(t, sample)
	s, _ := LoadStack(p)
	c := fastCrypter(t)
	if err := s.Set(ctx, "app:adminPassword", "hunter22", true, false, c); err != nil {
		t.Fatal(err)
	}
	if err := s.save(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(p)
	if strings.Contains(string(raw), "hunter22") || !strings.Contains(string(raw), "secure: v1:") {
		t.Fatalf("the secret is not encrypted in the file:\n%s", raw)
	}
	s, _ = LoadStack(p)
	v, ok, err := s.Get(ctx, "app:adminPassword", false, c)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	sec, isSecret := v.(Secret)
	if !isSecret || sec.Reveal() != "hunter22" {
		t.Fatalf("got %#v", v)
	}
	for _, shown := range []string{sec.String(), strings.TrimSpace(strings.ReplaceAll(string(must(sec.MarshalJSON())), `"`, ""))} {
		if shown != "[secret]" {
			t.Fatalf("a secret printed as %q", shown)
		}
	}
	if _, _, err := s.Get(ctx, "app:adminPassword", false, nil); err == nil {
		t.Fatal("a secret was read without the passphrase")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestPaths(t *testing.T) {
	s, err := ParseStack("x.yaml", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key  string
		want any
	}{
		{"app:data.nums[1]", "2"},
		{`app:data["a.b"]`, "x"},
		{"vpc:azs[0]", "us-west-1a"},
	}
	for _, tt := range tests {
		v, ok, err := s.Get(ctx, tt.key, true, nil)
		if err != nil || !ok || v != tt.want {
			t.Errorf("Get(%s) = %v %v %v", tt.key, v, ok, err)
		}
	}
	if err := s.Set(ctx, "app:data.nums[2]", "3", false, true, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, "app:new.deep.key", "v", false, true, nil); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := s.Get(ctx, "app:new.deep.key", true, nil); v != "v" {
		t.Fatalf("deep set: %v", v)
	}
	if ok, err := s.Remove("app:data.nums[0]", true); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if v, _, _ := s.Get(ctx, "app:data.nums[0]", true, nil); v != "2" {
		t.Fatalf("after remove: %v", v)
	}
	for _, bad := range []string{"nons", "app:data[x]", `app:data["a`, "app:data..x"} {
		if _, _, err := s.Get(ctx, bad, true, nil); err == nil {
			t.Errorf("path %q accepted", bad)
		}
	}
	if err := s.Set(ctx, "app:data.nums.x", "1", false, true, nil); err == nil {
		t.Fatal("a field of a list was set")
	}
}

func TestTypedGetters(t *testing.T) {
	s, _ := ParseStack("x.yaml", []byte("config:\n  a:n: 3\n  a:b: true\n  a:f: 1.5\n  a:s: hello\n"))
	if n, _, err := s.Int(ctx, "a:n", nil); n != 3 || err != nil {
		t.Fatal(n, err)
	}
	if b, _, err := s.Bool(ctx, "a:b", nil); !b || err != nil {
		t.Fatal(b, err)
	}
	if f, _, err := s.Float(ctx, "a:f", nil); f != 1.5 || err != nil {
		t.Fatal(f, err)
	}
	if _, _, err := s.Int(ctx, "a:s", nil); err == nil || !strings.Contains(err.Error(), "line 5") {
		t.Fatalf("error %v does not name the line", err)
	}
	if _, ok, _ := s.Int(ctx, "a:missing", nil); ok {
		t.Fatal("a missing key is set")
	}
}

func TestMalformedIsNeverOverwritten(t *testing.T) {
	body := "config:\n  a:b: [unclosed\n"
	p := write(t, body)
	_, err := LoadStack(p)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line == 0 || !strings.Contains(err.Error(), p) {
		t.Fatalf("error %v should name the file and line", err)
	}
	if got, _ := os.ReadFile(p); string(got) != body {
		t.Fatal("the malformed file changed")
	}
	if _, err := ParseStack("x", []byte("- a\n- b\n")); err == nil {
		t.Fatal("a list was accepted as a stack config")
	}
}

func TestSetRejectsBareKey(t *testing.T) {
	s, _ := ParseStack("x", []byte(sample))
	if err := s.Set(ctx, "region", "x", false, false, nil); err == nil || !strings.Contains(err.Error(), "namespace:key") {
		t.Fatalf("error %v", err)
	}
}

// maraExample is the repository's copy of MARA's example stack config
// (e2e/clouds/testdata, which the end-to-end tests deploy), relative to
// this package's folder.
var maraExample = filepath.Join("..", "e2e", "clouds", "testdata", "Pulumi.stackname.yaml.example")

func TestMARAExample(t *testing.T) {
	data, err := os.ReadFile(maraExample)
	if err != nil {
		t.Fatalf("the repository's copy of MARA's example: %v", err)
	}
	p := filepath.Join(t.TempDir(), "Pulumi.mara.yaml")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadStack(p)
	if err != nil {
		t.Fatalf("MARA's example does not load: %v", err)
	}
	if v, _, _ := s.String(ctx, "aws:region", nil); v != "us-east-1" {
		t.Fatalf("aws:region = %q", v)
	}
	if v, _, _ := s.Get(ctx, "vpc:azs", false, nil); Flatten(v) != "us-west-1a,us-west-1b" {
		t.Fatalf("vpc:azs = %v", v)
	}
	if n, _, err := s.Int(ctx, "eks:min_size", nil); n != 3 || err != nil {
		t.Fatalf("eks:min_size = %d %v", n, err)
	}
	probs := s.Problems()
	if len(probs) != 1 || probs[0].Key != "prometheus.statsd_chart_version" || probs[0].Line != 328 {
		t.Fatalf("problems %v", probs)
	}
	if !strings.Contains(probs[0].String(), "prometheus:statsd_chart_version") {
		t.Fatalf("no hint in %s", probs[0])
	}
}

// TestMARAExampleMatchesShared checks that the repository's copy of MARA's
// example has not drifted from the shared reference one.
func TestMARAExampleMatchesShared(t *testing.T) {
	shared, err := os.ReadFile(filepath.Join(testenv.Shared(t, "mara"), "Pulumi.stackname.yaml.example"))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := os.ReadFile(maraExample)
	if err != nil {
		t.Fatal(err)
	}
	if string(ours) != string(shared) {
		t.Errorf("%s differs from the shared copy of MARA's example; re-copy it", maraExample)
	}
}

func TestMalformedNamesTheLine(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		line       int
	}{
		{"unclosed list", "config:\n  app:a: 1\n  app:b: [1, 2\n  app:c: 3\n", 3},
		{"unclosed map", "config:\n  app:a: 1\n  app:b: {x: 1\n  app:c: 3\n", 3},
		{"two colons", "config:\n  app:a: 1\n  app:b: x: y\n  app:c: 3\n", 3},
		{"bad character", "config:\n  app:a: 1\n  app:b: @x\n  app:c: 3\n", 3},
		{"dedented key", "config:\n  app:a: 1\n  app:b: 1\n app:c: 3\n", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseStack("f.yaml", []byte(tc.body))
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != tc.line {
				t.Fatalf("error %v: want line %d", err, tc.line)
			}
		})
	}
}

func TestTypedShowsStructuredValuesAsJSONWould(t *testing.T) {
	c := fastCrypter(t)
	s, err := ParseStack("f.yaml", []byte("config:\n  app:port: 8443\n  app:data:\n    nums: [1, 2.5]\n    on: true\n    none: null\n    name: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, "app:data.pw", "hidden", true, true, c); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		path bool
		c    *Crypter
		want string
	}{
		{"app:port", false, nil, `"8443"`},
		{"app:data.nums", true, nil, `[1,2.5]`},
		{"app:data", false, nil, `{"name":"x","none":null,"nums":[1,2.5],"on":true,"pw":"[secret]"}`},
		{"app:data.pw", true, c, `"[secret]"`},
	} {
		v, ok, err := s.Typed(ctx, tc.key, tc.path, tc.c)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", tc.key, ok, err)
		}
		b, _ := json.Marshal(v)
		if string(b) != tc.want {
			t.Errorf("%s: %s, want %s", tc.key, b, tc.want)
		}
	}
	v, _, _ := s.Typed(ctx, "app:data.pw", true, c)
	if sec, ok := v.(Secret); !ok || sec.Reveal() != "hidden" {
		t.Fatalf("the secret leaf did not decrypt: %#v", v)
	}
}
