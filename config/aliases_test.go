package config

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestAliasesThatExpandTooFarAreRefused(t *testing.T) {
	laughs, err := os.ReadFile("testdata/laughs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		body string
		line int // 0: accepted
		msg  string
	}{
		{name: "nested aliases", body: string(laughs), line: 3, msg: "expand the file to more than"},
		{name: "a few aliases", body: "config:\n  a:x: &x [1, 2]\n  a:y: [*x, *x]\n"},
		{name: "alias of a map", body: "config:\n  a:x: &m {k: v}\n  a:y: *m\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			s, err := ParseStack("Pulumi.dev.yaml", []byte(tt.body))
			if time.Since(start) > 5*time.Second {
				t.Fatalf("parsing took %s", time.Since(start))
			}
			if tt.line == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.Values(ctx, nil); err != nil {
					t.Fatal(err)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != tt.line || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("error %v, want line %d and %q", err, tt.line, tt.msg)
			}
		})
	}
}
