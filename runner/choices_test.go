package runner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/runnerhq/runner/providers"
)

// choosing is a scripted asker that records the choices it was offered.
type choosing struct {
	scripted
	offered [][]string
}

func (c *choosing) Select(m string, choices []string, def, help string) (string, error) {
	c.offered = append(c.offered, choices)
	return c.scripted.Select(m, choices, def, help)
}

func choicesProvider() *providers.Provider {
	return &providers.Provider{
		Name:     "t",
		Projects: []providers.Project{{Name: "a", Category: providers.Infrastructure}},
		Questions: []providers.Question{
			{Key: "t:file", Message: "File"},
			{Key: "t:pick", Message: "Pick", ChoicesFrom: func(get func(string) (string, bool)) []string {
				f, ok := get("t:file")
				if !ok || f == "none" {
					return nil
				}
				return []string{f + "-1", f + "-2"}
			}},
		},
	}
}

func TestChoicesFromOtherAnswers(t *testing.T) {
	tests := []struct {
		name, body string
		err        string
	}{
		{"a listed choice", "config:\n  t:file: kc\n  t:pick: kc-2\n", ""},
		{"an unlisted one", "config:\n  t:file: kc\n  t:pick: other\n", "line 3: t:pick is \"other\", which is not one of kc-1, kc-2"},
		{"no list: anything", "config:\n  t:file: none\n  t:pick: other\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := session(t, false, nil, tt.body)
			s.Provider = choicesProvider()
			_, err := s.Validate(context.Background())
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !IsValidation(err) || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want a validation error holding %q", err, tt.err)
			}
		})
	}
}

func TestChoicesFromAreOfferedOnATerminal(t *testing.T) {
	a := &choosing{scripted: scripted{answers: []string{"kc-1"}}}
	s := session(t, true, a, "config:\n  t:file: kc\n")
	s.Provider = choicesProvider()
	if _, err := s.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(a.offered) != 1 || !slices.Equal(a.offered[0], []string{"kc-1", "kc-2"}) {
		t.Fatalf("offered %v", a.offered)
	}
	if got, _, _ := s.Config.String(context.Background(), "t:pick", nil); got != "kc-1" {
		t.Fatalf("t:pick = %q", got)
	}
}
