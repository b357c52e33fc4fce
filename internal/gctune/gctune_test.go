package gctune

import (
	"strings"
	"testing"
)

func TestEnv(t *testing.T) {
	const gib = int64(1) << 30
	tests := []struct {
		name  string
		env   []string
		limit int64
		want  []string // the variables added (nil: env unchanged)
	}{
		{"defaults", []string{"PATH=/bin"}, 4 * gib, []string{"GOGC=400", "GOMEMLIMIT=4294967296"}},
		{"no limit known: Go's defaults", []string{"PATH=/bin"}, 0, nil},
		{"the user's GOGC wins", []string{"GOGC=50", "PATH=/bin"}, 4 * gib, nil},
		{"the user's GOMEMLIMIT wins", []string{"GOMEMLIMIT=100MiB"}, 4 * gib, nil},
		{"GOGC=off is the user's too", []string{"GOGC=off"}, 4 * gib, nil},
		{"a name that only starts so", []string{"GOGCX=1"}, gib, []string{"GOGC=400", "GOMEMLIMIT=1073741824"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Env(tt.env, tt.limit)
			want := append(append([]string{}, tt.env...), tt.want...)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("Env(%q, %d) = %q, want %q", tt.env, tt.limit, got, want)
			}
		})
	}
}

func TestLimit(t *testing.T) {
	l := Limit()
	if l != 0 && l < minLimit {
		t.Errorf("Limit() = %d, under the %d it tunes from", l, minLimit)
	}
	if m := memTotal(); m > 0 && l > m/4 {
		t.Errorf("Limit() = %d, over a quarter of the machine's %d", l, m)
	}
	if c := cgroupLimit(); c > 0 && l > c/2 {
		t.Errorf("Limit() = %d, over half the cgroup's %d", l, c)
	}
}
