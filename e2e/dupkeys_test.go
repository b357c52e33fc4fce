package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A key written twice in the stack config: every command refuses the file
// (exit 3) naming the key and both lines, and none rewrites it.
func TestDuplicateKeyInStackConfig(t *testing.T) {
	for _, tc := range []struct {
		name, body, where, key string
	}{
		{"config key", "config:\n  app:port: \"1\"\n  app:name: x\n  app:port: \"2\"\n", ":4:", "app:port is written twice, on lines 2 and 4"},
		{"nested key", "config:\n  app:data:\n    a: 1\n    a: 2\n", ":4:", "app:data.a is written twice, on lines 3 and 4"},
		{"encryptionsalt", "encryptionsalt: v1:AAAAAAAAAAA=:v1:x:y\nconfig:\n  app:port: \"1\"\nencryptionsalt: v1:AQAAAAAAAAA=:v1:x:y\n", ":4:", "encryptionsalt is written twice, on lines 1 and 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := withStackFile(t, []byte(tc.body))
			for _, args := range [][]string{
				{"config", "get", "app:port"},
				{"config", "ls"},
				{"config", "set", "app:port", "3"},
				{"config", "set", "--secret", "app:pw", "x"},
				{"config", "rm", "app:port"},
				{"validate"},
				{"preview"},
			} {
				r := run(t, dir, "", nil, append([]string{"-s", "dev"}, args...)...)
				if r.Code != 3 {
					t.Errorf("%v exited %d, want 3\n%s%s", args, r.Code, r.Stdout, r.Stderr)
				}
				if !strings.Contains(r.Stderr, stackFile(dir)+tc.where) || !strings.Contains(r.Stderr, tc.key) {
					t.Errorf("%v does not name the file, the key and both lines (%s):\n%s", args, tc.key, r.Stderr)
				}
				if got := readStack(t, dir); got != tc.body {
					t.Fatalf("%v rewrote the file:\n%s", args, got)
				}
			}
		})
	}
}

// A key twice in the environment file: a warning on stderr naming the key,
// the file and both lines, once per command; the last one wins, and --json
// output stays JSON.
func TestDuplicateKeyInEnvironmentFile(t *testing.T) {
	dir := workspace(t)
	env := filepath.Join(dir, "config", "pulumi", "environment")
	if err := os.MkdirAll(filepath.Dir(env), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(env, []byte("PULUMI_STACK=first\n# later\nPULUMI_STACK=dev\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRun(t, dir, "", nil, 0, "config", "set", "app:port", "8443")
	if _, err := os.Stat(stackFile(dir)); err != nil {
		t.Fatalf("the last PULUMI_STACK did not win: %v", err)
	}
	r := wantRun(t, dir, "", nil, 0, "--json", "config", "ls")
	want := env + ": PULUMI_STACK is set twice, on lines 1 and 3"
	if strings.Count(r.Stderr, want) != 1 {
		t.Errorf("want the warning once on stderr, %q:\n%s", want, r.Stderr)
	}
	var items map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &items); err != nil || items["app:port"] == nil {
		t.Errorf("--json output: %v\n%s", err, r.Stdout)
	}
}
