package config

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseStackConfig: no panics, and a file that fails to load is left
// exactly as it was.
func FuzzParseStackConfig(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("config:\n  a:b: [unclosed\n"))
	f.Add([]byte("encryptionsalt: x\nconfig:\n  a:b:\n    secure: v1:x:y\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "Pulumi.f.yaml")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := LoadStack(p)
		if err != nil {
			if got, _ := os.ReadFile(p); !bytes.Equal(got, data) {
				t.Fatal("a file that failed to parse was changed")
			}
			return
		}
		_ = s.Entries()
		_ = s.Problems()
		if _, err := s.Bytes(); err != nil {
			return
		}
	})
}

// FuzzParseEnvFile: no panics, and a failed parse leaves the file alone.
func FuzzParseEnvFile(f *testing.F) {
	f.Add([]byte("PULUMI_STACK=dev\nA=1\n"))
	f.Add([]byte("export A=\"x\ny\"\n"))
	f.Add([]byte("garbage\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "environment")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		e, err := LoadEnv(p)
		if err != nil {
			if got, _ := os.ReadFile(p); !bytes.Equal(got, data) {
				t.Fatal("a file that failed to parse was changed")
			}
			return
		}
		_ = e.Values
	})
}
