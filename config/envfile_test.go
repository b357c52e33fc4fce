package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveStack(t *testing.T) {
	tests := []struct {
		name    string
		file    *string // nil: no file
		flag    string
		want    string
		wantErr string
		record  bool
		// wantFile is the file after ResolveStack, then after RecordStack
		// when record ("": no file).
		wantFile, wantRecorded string
	}{
		{name: "missing file would be created", flag: "dev", want: "dev", record: true, wantRecorded: "PULUMI_STACK=dev\n"},
		{name: "missing file, no stack", wantErr: "no stack selected"},
		{name: "file without the line would get it", file: ptr("# mine\nFOO=bar"), flag: "dev", want: "dev", record: true,
			wantFile: "# mine\nFOO=bar", wantRecorded: "# mine\nFOO=bar\nPULUMI_STACK=dev\n"},
		{name: "file names the stack", file: ptr("PULUMI_STACK=prod\n"), want: "prod", wantFile: "PULUMI_STACK=prod\n"},
		{name: "same stack both ways", file: ptr("PULUMI_STACK=prod\n"), flag: "prod", want: "prod", wantFile: "PULUMI_STACK=prod\n"},
		{name: "other stack", file: ptr("PULUMI_STACK=prod\n"), flag: "dev", wantErr: `"dev" given on the command line differs from PULUMI_STACK=prod`, wantFile: "PULUMI_STACK=prod\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "config", "pulumi", "environment")
			if tt.file != nil {
				_ = os.MkdirAll(filepath.Dir(p), 0o755)
				_ = os.WriteFile(p, []byte(*tt.file), 0o644)
			}
			e, err := LoadEnv(p)
			if err != nil {
				t.Fatal(err)
			}
			got, record, err := e.ResolveStack(tt.flag)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
			} else if err != nil || got != tt.want || record != tt.record {
				t.Fatalf("got %q, record %v, %v; want %q, record %v", got, record, err, tt.want, tt.record)
			}
			if b, _ := os.ReadFile(p); string(b) != tt.wantFile {
				t.Fatalf("after ResolveStack the file holds %q, want %q", b, tt.wantFile)
			}
			if !record {
				return
			}
			if err := e.RecordStack(got); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(p); string(b) != tt.wantRecorded {
				t.Fatalf("after RecordStack the file holds %q, want %q", b, tt.wantRecorded)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestEnvParseErrorsNameTheLine(t *testing.T) {
	tests := []struct {
		body string
		line int
	}{
		{"A=1\nthis is not\n", 2},
		{"A=1\n\n# c\n=oops\n", 4},
	}
	for _, tt := range tests {
		_, err := ParseEnv("environment", []byte(tt.body))
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != tt.line {
			t.Errorf("%q: error %v, want line %d", tt.body, err, tt.line)
		}
	}
	e, err := ParseEnv("environment", []byte("export A=1\nB=\"two\nlines\"\nC='x'\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e.Values["A"] != "1" || e.Values["B"] != "two\nlines" || e.Values["C"] != "x" {
		t.Fatalf("values %v", e.Values)
	}
}

func TestSetStackReplacesTheLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "environment")
	_ = os.WriteFile(p, []byte("A=1\nPULUMI_STACK=dev\nB=2\n"), 0o644)
	e, _ := LoadEnv(p)
	if err := e.SetStack("prod"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "A=1\nPULUMI_STACK=prod\nB=2\n" {
		t.Fatalf("file %q", b)
	}
	if err := e.SetStack("bad name"); err == nil {
		t.Fatal("a stack name with a space was accepted")
	}
}
