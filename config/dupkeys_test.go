package config

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestDuplicateKeysAreRefused(t *testing.T) {
	tests := []struct {
		name        string
		body        string
		key         string // "" when the file is accepted
		first, then int
	}{
		{name: "config key", body: "config:\n  app:port: 1\n  app:name: x\n  app:port: 2\n", key: "app:port", first: 2, then: 4},
		{name: "quoted copy", body: "config:\n  app:port: 1\n  \"app:port\": 2\n", key: "app:port", first: 2, then: 3},
		{name: "encryptionsalt", body: "encryptionsalt: a\nconfig: {}\nencryptionsalt: b\n", key: "encryptionsalt", first: 1, then: 3},
		{name: "config twice", body: "config:\n  a:b: 1\nconfig:\n  a:c: 2\n", key: "config", first: 1, then: 3},
		{name: "nested map key", body: "config:\n  app:data:\n    port: 1\n    inner:\n      x: 1\n      x: 2\n", key: "app:data.inner.x", first: 5, then: 6},
		{name: "map in a list", body: "config:\n  app:l:\n    - a: 1\n      a: 2\n", key: "app:l[0].a", first: 3, then: 4},
		{name: "secure twice", body: "config:\n  app:pw:\n    secure: v1:a:b\n    secure: v1:c:d\n", key: "app:pw.secure", first: 3, then: 4},
		{name: "flow mapping", body: "config:\n  app:m: {a: 1, a: 2}\n", key: "app:m.a", first: 2, then: 2},
		{name: "same key in two maps", body: "config:\n  app:a:\n    x: 1\n  app:b:\n    x: 1\n"},
		{name: "same name, two namespaces", body: "config:\n  a:port: 1\n  b:port: 2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseStack("Pulumi.dev.yaml", []byte(tt.body))
			if tt.key == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var de *DuplicateKeyError
			if !errors.As(err, &de) {
				t.Fatalf("error %v, want a DuplicateKeyError", err)
			}
			if de.Key != tt.key || de.First != tt.first || de.Then != tt.then {
				t.Fatalf("got key %s lines %d, %d; want %s lines %d, %d", de.Key, de.First, de.Then, tt.key, tt.first, tt.then)
			}
			msg := err.Error()
			for _, want := range []string{"Pulumi.dev.yaml", tt.key, "written twice"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
		})
	}
}

func TestUpdateRefusesAFileWithADuplicateKey(t *testing.T) {
	body := "encryptionsalt: x\nconfig:\n  app:port: 1\n  app:port: 2\n"
	p := write(t, body)
	_, err := UpdateStack(p, func(s *Stack) error {
		return s.Set(ctx, "app:other", "3", false, false, nil)
	})
	var de *DuplicateKeyError
	if !errors.As(err, &de) {
		t.Fatalf("error %v", err)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, []byte(body)) {
		t.Fatalf("the file was rewritten:\n%s", got)
	}
}

func TestEnvDuplicateKeysWarnAndTheLastWins(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		warns []string // each warning's expected fragments
		want  map[string]string
	}{
		{name: "none", body: "A=1\nB=2\n", want: map[string]string{"A": "1", "B": "2"}},
		{name: "twice", body: "A=1\nB=2\nA=3\n", warns: []string{"A is set twice, on lines 1 and 3"}, want: map[string]string{"A": "3"}},
		{name: "export and spaces", body: "export A=1\n# c\nA = 2\n", warns: []string{"A is set twice, on lines 1 and 3"}, want: map[string]string{"A": "2"}},
		{name: "three times", body: "A=1\nA=2\nA=3\n", warns: []string{"lines 1 and 2", "lines 2 and 3"}, want: map[string]string{"A": "3"}},
		{name: "a multi-line value is not a key", body: "A=\"x\nA=y\"\nB=1\n", want: map[string]string{"A": "x\nA=y"}},
		{name: "exportA is its own key", body: "exportA=1\nA=2\n", want: map[string]string{"exportA": "1", "A": "2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := ParseEnv("config/pulumi/environment", []byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if len(e.Warnings) != len(tt.warns) {
				t.Fatalf("warnings %q, want %d", e.Warnings, len(tt.warns))
			}
			for i, w := range tt.warns {
				if !strings.Contains(e.Warnings[i], w) || !strings.HasPrefix(e.Warnings[i], "config/pulumi/environment: ") {
					t.Errorf("warning %q, want the file and %q", e.Warnings[i], w)
				}
			}
			for k, v := range tt.want {
				if e.Values[k] != v {
					t.Errorf("%s = %q, want %q", k, e.Values[k], v)
				}
			}
		})
	}
}
