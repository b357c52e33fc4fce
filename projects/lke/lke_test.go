package lke

import (
	"strings"
	"testing"
)

func TestStackTag(t *testing.T) {
	long := strings.Repeat("s", 51)
	for _, tt := range []struct{ stack, want string }{
		{"dev", "dev"},
		{"qa", "mara-qa"},
		{"a", "mara-a"},
		{strings.Repeat("s", 50), strings.Repeat("s", 50)},
		{long, Label(long)},
	} {
		got := StackTag(tt.stack)
		if got != tt.want || len(got) < 3 || len(got) > 50 {
			t.Errorf("StackTag(%q) = %q, want %q (3 to 50 characters)", tt.stack, got, tt.want)
		}
	}
}
