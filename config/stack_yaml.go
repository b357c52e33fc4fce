package config

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

func yamlError(name string, data []byte, err error) error {
	msg := err.Error()
	line := 0
	// yaml.v3 errors read "yaml: line N: ..."
	if i := strings.Index(msg, "line "); i >= 0 {
		rest := msg[i+5:]
		if j := strings.IndexByte(rest, ':'); j > 0 {
			if n, convErr := strconv.Atoi(rest[:j]); convErr == nil {
				line = n
				msg = strings.TrimSpace(rest[j+1:])
				// yaml.v3 counts lines from 0 in its parser errors (not
				// in its scanner errors): "did not find expected ...".
				if strings.HasPrefix(msg, "did not find expected") {
					line++
				}
			}
		}
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	if line == 0 {
		line = errorLineOf(data, msg)
	}
	return &ParseError{File: name, Line: line, Msg: "the YAML is malformed: " + msg + "; fix the file (it was left unchanged)"}
}

// errorLineOf finds the line of a yaml.v3 error that names none: the
// first byte that is not valid UTF-8 or not allowed in YAML, the alias of
// an unknown anchor, or the end of the file where a quoted value was left
// open.
func errorLineOf(data []byte, msg string) int {
	lineAt := func(off int) int { return 1 + bytes.Count(data[:off], []byte("\n")) }
	switch {
	case strings.Contains(msg, "UTF-8"), strings.Contains(msg, "control characters"):
		for off := 0; off < len(data); {
			r, size := utf8.DecodeRune(data[off:])
			if (r == utf8.RuneError && size <= 1) || !yamlPrintable(r) {
				return lineAt(off)
			}
			off += size
		}
	case strings.HasPrefix(msg, "unknown anchor"):
		if name, _, ok := strings.Cut(strings.TrimPrefix(msg, "unknown anchor '"), "'"); ok {
			if off := bytes.Index(data, []byte("*"+name)); off >= 0 {
				return lineAt(off)
			}
		}
	}
	// The end of the file: where an open quote or bracket ran out.
	return lineAt(len(bytes.TrimRight(data, " \t\r\n")))
}

// yamlPrintable reports whether YAML allows r in a file (its c-printable).
func yamlPrintable(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r', r == 0x85:
		return true
	case r >= 0x20 && r <= 0x7e, r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd, r >= 0x10000 && r <= 0x10ffff:
		return true
	}
	return false
}

func lineOf(nodes []*yaml.Node) int {
	if len(nodes) > 0 {
		return nodes[0].Line
	}
	return 0
}
