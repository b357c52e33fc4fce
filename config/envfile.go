package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/joho/godotenv"
)

// StackVar is the variable that names the stack, as in MARA.
const StackVar = "PULUMI_STACK"

// EnvFile is a parsed environment file.
type EnvFile struct {
	Path   string
	Values map[string]string
	raw    []byte
	exists bool
}

// ParseError is a file that could not be parsed; it names the file and line.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

var envKey = regexp.MustCompile(`^(export\s+)?[A-Za-z_][A-Za-z0-9_.]*\s*=`)

// ParseEnv parses the bytes of an environment file named name.
func ParseEnv(name string, data []byte) (*EnvFile, error) {
	if err := checkEnvLines(name, data); err != nil {
		return nil, err
	}
	values, err := godotenv.UnmarshalBytes(data)
	if err != nil {
		return nil, &ParseError{File: name, Msg: err.Error() + "; each line must be KEY=VALUE or a # comment"}
	}
	return &EnvFile{Path: name, Values: values, raw: data, exists: true}, nil
}

// checkEnvLines finds the first line that is not KEY=VALUE, a comment, a
// blank or the continuation of a quoted value.
func checkEnvLines(name string, data []byte) error {
	if bytes.IndexByte(data, 0) >= 0 {
		return &ParseError{File: name, Msg: "the file holds NUL bytes; it is not an environment file"}
	}
	open := byte(0) // the quote of a multi-line value still open
	for i, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if open != 0 {
			if strings.Count(trimmed, string(open))%2 == 1 {
				open = 0
			}
			continue
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if !envKey.MatchString(trimmed) {
			return &ParseError{File: name, Line: i + 1, Msg: fmt.Sprintf("%q is not KEY=VALUE; fix or remove the line", truncate(trimmed, 40))}
		}
		value := strings.TrimSpace(trimmed[strings.Index(trimmed, "=")+1:])
		for _, q := range []byte{'"', '\''} {
			if strings.HasPrefix(value, string(q)) && strings.Count(value, string(q))%2 == 1 {
				open = q
			}
		}
	}
	if open != 0 {
		return &ParseError{File: name, Msg: fmt.Sprintf("a value opened with %c is never closed", open)}
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// LoadEnv reads the environment file at path; a missing file gives an
// empty EnvFile that does not exist yet.
func LoadEnv(path string) (*EnvFile, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &EnvFile{Path: path, Values: map[string]string{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the environment file: %w", err)
	}
	return ParseEnv(path, data)
}

// Exists reports whether the file was on disk.
func (e *EnvFile) Exists() bool { return e.exists }

// StackMismatchError is a stack given on the command line that differs from
// the environment file's PULUMI_STACK.
type StackMismatchError struct {
	File, FileStack, FlagStack string
}

func (e *StackMismatchError) Error() string {
	return fmt.Sprintf("the stack %q given on the command line differs from PULUMI_STACK=%s in %s; pass -s %s, or switch with `runner stack select %s`",
		e.FlagStack, e.FileStack, e.File, e.FileStack, e.FlagStack)
}

// ErrNoStack means no stack was named anywhere.
var ErrNoStack = errors.New("no stack selected: pass --stack NAME (or -s NAME), set PULUMI_STACK, or run `runner stack select NAME`")

// ResolveStack decides the stack from the command line (flagStack, may be
// "") and the file, and records it in the file the way MARA does: a missing
// file is created with PULUMI_STACK=<stack>, a file without PULUMI_STACK
// gets the line. A file naming another stack than flagStack is a
// *StackMismatchError.
func (e *EnvFile) ResolveStack(flagStack string) (string, error) {
	fileStack := e.Values[StackVar]
	switch {
	case flagStack == "" && fileStack == "":
		return "", ErrNoStack
	case flagStack != "" && fileStack != "" && flagStack != fileStack:
		return "", &StackMismatchError{File: e.Path, FileStack: fileStack, FlagStack: flagStack}
	case fileStack != "":
		return fileStack, nil
	}
	if err := e.SetStack(flagStack); err != nil {
		return "", err
	}
	return flagStack, nil
}

// SetStack writes PULUMI_STACK=name into the file (replacing the line that
// sets it, or adding one), atomically, keeping every other byte.
func (e *EnvFile) SetStack(name string) error {
	if !validStackName(name) {
		return fmt.Errorf("%q is not a valid stack name: use letters, digits, '-', '_' and '.'", name)
	}
	lines := strings.Split(string(e.raw), "\n")
	replaced := false
	for i, l := range lines {
		t := strings.TrimPrefix(strings.TrimSpace(l), "export ")
		if strings.HasPrefix(t, StackVar+"=") || strings.HasPrefix(t, StackVar+" =") {
			lines[i] = StackVar + "=" + name
			replaced = true
		}
	}
	out := strings.Join(lines, "\n")
	if !replaced {
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += StackVar + "=" + name + "\n"
	}
	if err := writeAtomic(e.Path, []byte(out), 0o644); err != nil {
		return err
	}
	e.raw, e.exists = []byte(out), true
	e.Values[StackVar] = name
	return nil
}

var stackName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

func validStackName(s string) bool { return stackName.MatchString(s) && len(s) <= 100 }

// ValidStackName reports whether s may name a stack.
func ValidStackName(s string) bool { return validStackName(s) }

// Apply sets every value of the file in the process environment, so that
// everything runner starts (plugins, commands, hooks) sees them.
func (e *EnvFile) Apply() error {
	for k, v := range e.Values {
		if err := os.Setenv(k, v); err != nil {
			return fmt.Errorf("setting %s from %s: %w", k, e.Path, err)
		}
	}
	return nil
}
