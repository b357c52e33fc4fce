package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/joho/godotenv"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// StackVar is the variable that names the stack, as in MARA.
const StackVar = "PULUMI_STACK"

// EnvFile is a parsed environment file.
type EnvFile struct {
	Path   string
	Values map[string]string
	// Warnings are what the file does that runner accepts but the user
	// should hear about (a key set twice), each naming the file and lines.
	Warnings []string
	raw      []byte
	changed  bool
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

var envKey = regexp.MustCompile(`^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=`)

// ParseEnv parses the bytes of an environment file named name.
func ParseEnv(name string, data []byte) (*EnvFile, error) {
	keys, err := checkEnvLines(name, data)
	if err != nil {
		return nil, err
	}
	values, err := godotenv.UnmarshalBytes(data)
	if err != nil {
		return nil, &ParseError{File: name, Line: failingLine(data, keys), Msg: err.Error() + "; each line must be KEY=VALUE or a # comment"}
	}
	return &EnvFile{Path: name, Values: values, Warnings: duplicateWarnings(name, keys), raw: data}, nil
}

// failingLine finds the line of the value godotenv refuses: the first key
// whose lines, read with those before, no longer parse.
func failingLine(data []byte, keys []envLine) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	for _, k := range keys {
		if _, err := godotenv.UnmarshalBytes(bytes.Join(lines[:k.end], nil)); err != nil {
			return k.line
		}
	}
	return 1
}

// envLine is a key set on a line of an environment file; a quoted value
// may run on to line end.
type envLine struct {
	key       string
	line, end int
}

// duplicateWarnings names every key set more than once; the last one wins,
// as in a shell.
func duplicateWarnings(name string, keys []envLine) []string {
	last := map[string]int{}
	var out []string
	for _, k := range keys {
		if prev, ok := last[k.key]; ok {
			out = append(out, fmt.Sprintf("%s: %s is set twice, on lines %d and %d; the value of line %d is used (remove the other line)",
				name, k.key, prev, k.line, k.line))
		}
		last[k.key] = k.line
	}
	return out
}

// checkEnvLines finds the first line that is not KEY=VALUE, a comment, a
// blank or the continuation of a quoted value, reading quotes as godotenv
// does. It returns the key of each KEY=VALUE line with its line numbers.
func checkEnvLines(name string, data []byte) ([]envLine, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, &ParseError{File: name, Line: 1 + bytes.Count(data[:i], []byte("\n")), Msg: "the line holds a NUL byte; this is not an environment file"}
	}
	var keys []envLine
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		m := envKey.FindStringSubmatch(trimmed)
		if m == nil {
			return nil, &ParseError{File: name, Line: i + 1, Msg: fmt.Sprintf("%q is not KEY=VALUE; fix or remove the line", truncate(trimmed, 40))}
		}
		k := envLine{key: m[1], line: i + 1, end: i + 1}
		switch value := strings.TrimSpace(trimmed[len(m[0]):]); {
		case value != "" && (value[0] == '"' || value[0] == '\''):
			end, err := closingLine(name, lines, i, value)
			if err != nil {
				return nil, err
			}
			k.end, i = end, end-1
		case strings.ContainsRune(value, '\r'):
			// godotenv ends the value there and reads the rest as another line.
			return nil, &ParseError{File: name, Line: i + 1, Msg: "the line holds a carriage return (\\r) inside its value; remove it or quote the value"}
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// closingLine returns the line (from 1) that closes the quoted value
// opening on lines[i], value being the text from its opening quote. As in
// godotenv, a quote after a backslash does not close it. Only a comment may
// follow the closing quote.
func closingLine(name string, lines []string, i int, value string) (int, error) {
	q := value[0]
	for j, text, start := i, value, 1; j < len(lines); j, start = j+1, 0 {
		if j > i {
			text = lines[j]
		}
		for pos := start; pos < len(text); pos++ {
			if text[pos] != q || (pos > 0 && text[pos-1] == '\\') {
				continue
			}
			if rest := strings.TrimSpace(text[pos+1:]); rest != "" && !strings.HasPrefix(rest, "#") {
				return 0, &ParseError{File: name, Line: j + 1, Msg: fmt.Sprintf("%q follows the closing %c of a quoted value; put it on a line of its own or remove it", truncate(rest, 40), q)}
			}
			return j + 1, nil
		}
	}
	return 0, &ParseError{File: name, Line: i + 1, Msg: fmt.Sprintf("the value opened with %c on this line is never closed", q)}
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
	data, err := boundedfile.ReadFile(path, boundedfile.Environment)
	if errors.Is(err, os.ErrNotExist) {
		return &EnvFile{Path: path, Values: map[string]string{}}, nil
	}
	if boundedfile.IsRefused(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("reading the environment file: %w", err)
	}
	return ParseEnv(path, data)
}

// StackMismatchError is a stack given on the command line that differs from
// the environment file's PULUMI_STACK.
type StackMismatchError struct {
	File, FileStack, FlagStack string
	// FromEnv says FlagStack came from the environment variable
	// PULUMI_STACK rather than from --stack.
	FromEnv bool
}

func (e *StackMismatchError) Error() string {
	if e.FromEnv {
		return fmt.Sprintf("the stack %q of the environment variable PULUMI_STACK differs from PULUMI_STACK=%s in %s; unset the variable (or set it to %s), or switch with `runner stack select %s`",
			e.FlagStack, e.FileStack, e.File, e.FileStack, e.FlagStack)
	}
	return fmt.Sprintf("the stack %q given on the command line differs from PULUMI_STACK=%s in %s; pass -s %s, or switch with `runner stack select %s`",
		e.FlagStack, e.FileStack, e.File, e.FileStack, e.FlagStack)
}

// ErrNoStack means no stack was named anywhere.
var ErrNoStack = errors.New("no stack selected: pass --stack NAME (or -s NAME), set PULUMI_STACK, or run `runner stack select NAME`")

// ResolveStack decides the stack from the command line (flagStack, may be
// "") and the file, writing nothing. record says that the file does not
// name the stack yet: RecordStack would add PULUMI_STACK=<stack> to it
// (creating a missing file), as MARA does, which only the commands that
// write (config, up, stack select, stack init) do. A file naming another
// stack than flagStack is a *StackMismatchError.
func (e *EnvFile) ResolveStack(flagStack string) (stack string, record bool, err error) {
	fileStack := e.Values[StackVar]
	switch {
	case flagStack == "" && fileStack == "":
		return "", false, ErrNoStack
	case flagStack != "" && fileStack != "" && flagStack != fileStack:
		return "", false, &StackMismatchError{File: e.Path, FileStack: fileStack, FlagStack: flagStack}
	case fileStack != "":
		return fileStack, false, nil
	}
	if !validStackName(flagStack) {
		return "", false, invalidStackName(flagStack)
	}
	return flagStack, true, nil
}

// RecordStack adds PULUMI_STACK=name to the file (creating it) when it names
// no stack, under the file's lock and atomically. Another command may have
// written the file since it was read: one that names another stack now is
// a *StackMismatchError, and is left as it is.
func (e *EnvFile) RecordStack(name string) error {
	if !validStackName(name) {
		return invalidStackName(name)
	}
	return e.update(func(f *EnvFile) error {
		switch cur := f.Values[StackVar]; {
		case cur == "":
			f.setStack(name)
		case cur != name:
			return &StackMismatchError{File: f.Path, FileStack: cur, FlagStack: name}
		}
		return nil
	})
}

// SetStack writes PULUMI_STACK=name into the file (replacing the line that
// sets it, or adding one), under the file's lock and atomically, keeping
// every other byte.
func (e *EnvFile) SetStack(name string) error {
	if !validStackName(name) {
		return invalidStackName(name)
	}
	return e.update(func(f *EnvFile) error {
		f.setStack(name)
		return nil
	})
}

// UnsetStack removes the lines that set PULUMI_STACK to name (a stack that
// was removed), under the file's lock and atomically, keeping every other
// byte. A file that selects another stack, or none, is left as it is.
func (e *EnvFile) UnsetStack(name string) error {
	return e.update(func(f *EnvFile) error {
		if f.Values[StackVar] != name {
			return nil
		}
		keys, _ := checkEnvLines(f.Path, f.raw) // it parsed when read
		lines := strings.Split(string(f.raw), "\n")
		for j := len(keys) - 1; j >= 0; j-- { // from the end: lines are removed
			if k := keys[j]; k.key == StackVar {
				lines = append(lines[:k.line-1:k.line-1], lines[k.end:]...)
			}
		}
		f.raw, f.changed = []byte(strings.Join(lines, "\n")), true
		delete(f.Values, StackVar)
		return nil
	})
}

// update applies edit to the file on disk under its lock (UpdateEnv) and
// makes e what was written.
func (e *EnvFile) update(edit func(*EnvFile) error) error {
	fresh, err := UpdateEnv(e.Path, edit)
	if err != nil {
		return err
	}
	*e = *fresh
	return nil
}

func invalidStackName(name string) error {
	return fmt.Errorf("%q is not a valid stack name: %s", name, StackNameRule)
}

// setStack sets PULUMI_STACK=name in the file's text (replacing the line
// that sets it, or adding one), keeping every other byte.
func (e *EnvFile) setStack(name string) {
	keys, _ := checkEnvLines(e.Path, e.raw) // it parsed when read
	lines := strings.Split(string(e.raw), "\n")
	replaced := false
	for j := len(keys) - 1; j >= 0; j-- { // from the end: lines are removed
		if k := keys[j]; k.key == StackVar {
			lines = append(append(lines[:k.line-1:k.line-1], StackVar+"="+name), lines[k.end:]...)
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
	e.raw, e.changed = []byte(out), true
	e.Values[StackVar] = name
}

// save writes the file atomically; callers hold its lock (see UpdateEnv).
func (e *EnvFile) save() error {
	if err := writeAtomic(e.Path, e.raw, 0o600); err != nil { // it may hold the passphrase
		return err
	}
	e.changed = false
	return nil
}

// StackNameRule says which stack names are valid, for messages.
const StackNameRule = "use letters, digits, '-', '_' and '.', starting with a letter or a digit (not '-', '_' or '.'), at most 100 characters"

var stackName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

func validStackName(s string) bool { return stackName.MatchString(s) && len(s) <= 100 }

// ValidStackName reports whether s may name a stack.
func ValidStackName(s string) bool { return validStackName(s) }

// Changed reports whether the file was changed since it was read or written.
func (e *EnvFile) Changed() bool { return e.changed }
