package runstate

import "testing"

func TestDefaultProviderName(t *testing.T) {
	tests := []struct {
		version, want string
		fails         bool
	}{
		{"", "default", false},
		{"1.2.3", "default_1_2_3", false},
		{"v4.18.0", "default_4_18_0", false},
		{"1.2.3-alpha.1", "default_1_2_3_alpha_1", false},
		{"1.2.3-beta+build.7", "default_1_2_3_beta_build_7", false},
		{"1.2", "default_1_2_0", false},
		{"1.x.3", "", true},
		{"1.2.3.4", "", true},
		{"1.2.3-", "", true},
	}
	for _, tt := range tests {
		got, err := DefaultProviderName(tt.version)
		if (err != nil) != tt.fails || got != tt.want {
			t.Errorf("DefaultProviderName(%q) = %q, %v; want %q (fails %v)", tt.version, got, err, tt.want, tt.fails)
		}
	}
}
