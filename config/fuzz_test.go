package config

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// errorLine returns the line an error of LoadStack or LoadEnv names (0
// when it names none).
func errorLine(err error) int {
	var pe *ParseError
	var de *DuplicateKeyError
	switch {
	case errors.As(err, &pe):
		return pe.Line
	case errors.As(err, &de):
		return de.Then
	}
	return 0
}

// stackValues is everything a stack config means: its salt and, for each
// key in order, its entry and its typed value (secrets redacted).
func stackValues(t *testing.T, s *Stack) []any {
	t.Helper()
	out := []any{s.EncryptionSalt()}
	for _, e := range s.Entries() {
		e.Line = 0
		typed, _, err := s.Typed(ctx, e.Key, false, nil)
		out = append(out, e, typed, err == nil)
	}
	return out
}

// FuzzParseStackConfig: a file that fails to load names a line and is left
// exactly as it was; one that loads reads back the same after it is
// written, and after a key is added (the other keys unchanged).
func FuzzParseStackConfig(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("config:\n  a:b: [unclosed\n"))
	f.Add([]byte("encryptionsalt: x\nconfig:\n  a:b:\n    secure: v1:x:y\n"))
	f.Add([]byte(""))
	f.Add([]byte("encryptionsalt:\nconfig:\n  a:b: 1\n\n  a:c: 2\n"))
	f.Add([]byte("config:\n  a:b: 1\n  a:b: 2\n"))
	if laughs, err := os.ReadFile("testdata/laughs.yaml"); err == nil {
		f.Add(laughs)
	}
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
			if errorLine(err) <= 0 {
				t.Fatalf("the error names no line: %v", err)
			}
			return
		}
		want := stackValues(t, s)
		out, err := s.Bytes()
		if err != nil {
			t.Fatalf("a file that parsed cannot be written: %v", err)
		}
		again, err := ParseStack(p, out)
		if err != nil {
			t.Fatalf("the file as written does not parse: %v\n%s", err, out)
		}
		if got := stackValues(t, again); !reflect.DeepEqual(got, want) {
			t.Fatalf("written and read back, the file changed:\n%#v\nwant:\n%#v\nwritten:\n%s", got, want, out)
		}
		if again.Set(ctx, "fuzz:added", "x", false, false, nil) != nil {
			return // config: is not a mapping
		}
		out, err = again.Bytes()
		if err != nil {
			t.Fatalf("writing after a set: %v", err)
		}
		third, err := ParseStack(p, out)
		if err != nil {
			t.Fatalf("the file with a key added does not parse: %v\n%s", err, out)
		}
		got := stackValues(t, third)
		if len(got) < 3 || !reflect.DeepEqual(got[:len(got)-3], want) {
			t.Fatalf("adding a key changed the others:\n%#v\nwant:\n%#v\nwritten:\n%s", got, want, out)
		}
	})
}

// FuzzParseEnvFile: a file that fails to parse names a line and is left
// alone; one that parses keeps every value when PULUMI_STACK is set in it.
func FuzzParseEnvFile(f *testing.F) {
	f.Add([]byte("PULUMI_STACK=dev\nA=1\n"))
	f.Add([]byte("export A=\"x\ny\"\n"))
	f.Add([]byte("garbage\n"))
	f.Add([]byte("A=1\nA=2\n"))
	f.Add([]byte("A='open\nPULUMI_STACK=x'\n"))
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
			if errorLine(err) <= 0 {
				t.Fatalf("the error names no line: %v", err)
			}
			return
		}
		want := maps.Clone(e.Values)
		want[StackVar] = "fuzz"
		// A value that names a variable ($X, ${X}) may name PULUMI_STACK.
		keys, _ := checkEnvLines(p, data)
		lines := strings.Split(string(data), "\n")
		expands := map[string]bool{}
		for _, k := range keys {
			if strings.Contains(strings.Join(lines[k.line-1:k.end], "\n"), "$") {
				expands[k.key] = true
			}
		}
		if err := e.SetStack("fuzz"); err != nil {
			t.Fatal(err)
		}
		again, err := LoadEnv(p)
		if err != nil {
			t.Fatalf("the file with PULUMI_STACK set does not parse: %v", err)
		}
		for k := range expands {
			if _, ok := again.Values[k]; ok && k != StackVar {
				want[k] = again.Values[k]
			}
		}
		if !reflect.DeepEqual(again.Values, want) {
			written, _ := os.ReadFile(p)
			t.Fatalf("setting PULUMI_STACK changed the values:\n%q\nwant:\n%q\nwritten:\n%q", again.Values, want, written)
		}
	})
}
