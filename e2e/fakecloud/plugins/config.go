package plugins

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// config is a provider configuration with its values' plaintext: strings
// as they are, other values JSON-encoded (the form a default provider gets
// them in from the stack config).
type config map[string]string

// readConfig returns the configuration in m, and false when a value is
// unknown.
func readConfig(m resource.PropertyMap) (config, bool) {
	cfg := config{}
	for k, v := range m {
		v, known := Contents(v)
		if !known || v.ContainsUnknowns() {
			return nil, false
		}
		switch v = Plain(v); {
		case v.IsNull():
		case v.IsString():
			cfg[string(k)] = v.StringValue()
		default:
			data, _ := json.Marshal(v.Mappable())
			cfg[string(k)] = string(data)
		}
	}
	return cfg, true
}

// list returns the config value of key read as a list of strings: a JSON
// array, or one string.
func (c config) list(key string) []string {
	v := c[key]
	if v == "" {
		return nil
	}
	var out []string
	if json.Unmarshal([]byte(v), &out) == nil {
		return out
	}
	return []string{v}
}

// bool reports whether the config value of key is true.
func (c config) bool(key string) bool { return c[key] == "true" }

// expandHome replaces a leading ~ of path by the home directory.
func expandHome(path string) (string, error) {
	if path != "~" && !strings.HasPrefix(path, "~/") {
		return path, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the home directory for %s: %w", path, err)
	}
	return filepath.Join(home, path[1:]), nil
}

// homeFile returns the file rel under the home directory ("" without one).
func homeFile(rel string) string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, rel)
}
