package resource

import "testing"

// TestMissingConfigErrorMessage checks that the message gives one
// `runner config set` line per missing key.
func TestMissingConfigErrorMessage(t *testing.T) {
	tests := []struct {
		name string
		keys []MissingKey
		want string
	}{
		{"one key", []MissingKey{{Key: "store", Description: "where files go"}},
			"the testprov provider needs config it does not have; set it with:\n" +
				"  runner config set testprov:store VALUE   # where files go"},
		{"two keys", []MissingKey{{Key: "store"}, {Key: "zone", Description: "the zone"}},
			"the testprov provider needs config it does not have; set it with:\n" +
				"  runner config set testprov:store VALUE\n" +
				"  runner config set testprov:zone VALUE   # the zone"},
	}
	for _, tt := range tests {
		err := &MissingConfigError{Package: "testprov", Keys: tt.keys}
		if got := err.Error(); got != tt.want {
			t.Errorf("%s: message\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}
