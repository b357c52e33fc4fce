package linode

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestVersionFollowsOldestMinor: the LKE version check refuses exactly the
// minor versions before oldestMinor, whatever it is set to.
func TestVersionFollowsOldestMinor(t *testing.T) {
	oldest, err := strconv.Atoi(strings.TrimPrefix(oldestMinor, "1."))
	if err != nil {
		t.Fatalf("oldestMinor %q is not 1.<minor>", oldestMinor)
	}
	for _, tt := range []struct {
		v  string
		ok bool
	}{
		{oldestMinor, true},
		{fmt.Sprintf("1.%d", oldest+2), true},
		{fmt.Sprintf("1.%d", oldest-1), false},
		{"1.23", false},
		{"1.x", false},
		{"v1.34", false},
		{"1.34.1", false},
	} {
		if err := version(tt.v); (err == nil) != tt.ok {
			t.Errorf("version(%q) = %v, want ok %v", tt.v, err, tt.ok)
		}
	}
}
