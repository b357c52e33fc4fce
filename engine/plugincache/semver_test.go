package plugincache

import "testing"

func TestVersionCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.0.0", "1.0.0", 0},
		{"v1.0.0", "1.0.0", 0},
		{"1.0.0+build.7", "1.0.0", 0},
		{"1.0.0", "1.0.1", -1},
		{"1.10.0", "1.9.0", 1},
		{"2.0.0", "10.0.0", -1},
		{"1.0.0-alpha", "1.0.0", -1},
		{"1.0.0-alpha", "1.0.0-alpha.1", -1},
		{"1.0.0-alpha.1", "1.0.0-alpha.beta", -1},
		{"1.0.0-beta.2", "1.0.0-beta.11", -1},
		{"1.0.0-rc.1", "1.0.0-beta.11", 1},
	}
	for _, tt := range tests {
		a, err := parseVersion(tt.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := parseVersion(tt.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.compare(b); got != tt.want {
			t.Errorf("compare(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := b.compare(a); got != -tt.want {
			t.Errorf("compare(%s, %s) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

func TestParseVersionRefuses(t *testing.T) {
	for _, s := range []string{"", "1", "1.2", "1.2.3.4", "01.2.3", "1.2.x", "1.2.3-", "1.2.3-a..b", "1.2.3-a/b", "../1.2.3"} {
		if _, err := parseVersion(s); err == nil {
			t.Errorf("parseVersion(%q) accepted it", s)
		}
	}
}

func TestParseDirName(t *testing.T) {
	tests := []struct {
		base, name, version string
		ok                  bool
	}{
		{"resource-aws-v7.48.0", "aws", "7.48.0", true},
		{"resource-azure-native-v2.1.0-alpha.1", "azure-native", "2.1.0-alpha.1", true},
		{"resource-x-v2-v1.0.0", "x-v2", "1.0.0", true},
		{"resource-aws-v7.48.0.partial", "", "", false},
		{"resource-aws-v7.48.0.lock", "", "", false},
		{"language-nodejs-v3.0.0", "", "", false},
		{"resource-aws", "", "", false},
		{"resource-aws-vv1.0.0", "", "", false},
	}
	for _, tt := range tests {
		name, v, ok := parseDirName(tt.base)
		if ok != tt.ok || name != tt.name || (ok && v.String() != tt.version) {
			t.Errorf("parseDirName(%s) = %s, %s, %v; want %s, %s, %v", tt.base, name, v, ok, tt.name, tt.version, tt.ok)
		}
	}
}

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.2.3", "1.2.3", 0}, {"v1.2.3", "1.2.3", 0}, {"1.2.3", "1.10.0", -1}, {"2.0.0", "1.99.99", 1},
		{"1.0.0-beta", "1.0.0", -1}, {"1.0.0", "1.0.0-beta", 1}, {"1.0.0-alpha", "1.0.0-beta", -1}, {"1.0.0+build", "1.0.0", 0},
		{"1.0.0-beta.10", "1.0.0-beta.2", 1}, {"1.0.0-beta.2", "1.0.0-beta.10", -1},
	}
	for _, tt := range tests {
		if got, err := CompareVersions(tt.a, tt.b); err != nil || got != tt.want {
			t.Errorf("CompareVersions(%s, %s) = %d, %v; want %d", tt.a, tt.b, got, err, tt.want)
		}
	}
	if _, err := CompareVersions("1.2", "1.2.3"); err == nil {
		t.Error("CompareVersions of a version that is not semantic gave no error")
	}
}
