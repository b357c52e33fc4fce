package runtime

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strings"
	"sync"
)

// minMasked is the shortest secret masked in program output, as Pulumi
// does: shorter ones would mangle every line.
const minMasked = 3

// masker replaces the plaintext of secret config values, and their
// JSON-escaped forms, with [secret].
type masker struct{ rep *strings.Replacer }

func newMasker(config map[string]string, secretKeys []string) *masker {
	seen := map[string]bool{}
	var vals []string
	add := func(s string) {
		if len(s) >= minMasked && !seen[s] {
			seen[s] = true
			vals = append(vals, s)
		}
	}
	for _, k := range secretKeys {
		v, ok := config[k]
		if !ok {
			continue
		}
		add(v)
		if b, err := json.Marshal(v); err == nil {
			add(strings.Trim(string(b), `"`))
		}
	}
	if len(vals) == 0 {
		return &masker{}
	}
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	pairs := make([]string, 0, 2*len(vals))
	for _, v := range vals {
		pairs = append(pairs, v, "[secret]")
	}
	return &masker{rep: strings.NewReplacer(pairs...)}
}

func (m *masker) mask(s string) string {
	if m.rep == nil {
		return s
	}
	return m.rep.Replace(s)
}

// writer returns a writer that masks w's input line by line (a secret is
// never split across two writes of a line).
func (m *masker) writer(w io.Writer) *maskWriter { return &maskWriter{m: m, w: w} }

// maskWriter buffers up to a line end, masks, and writes on.
type maskWriter struct {
	m   *masker
	w   io.Writer
	mu  sync.Mutex
	buf bytes.Buffer
}

func (mw *maskWriter) Write(p []byte) (int, error) {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	mw.buf.Write(p)
	if i := bytes.LastIndexByte(mw.buf.Bytes(), '\n'); i >= 0 {
		chunk := string(mw.buf.Next(i + 1))
		if _, err := io.WriteString(mw.w, mw.m.mask(chunk)); err != nil {
			return len(p), nil // the log is gone; the program goes on
		}
	}
	if mw.buf.Len() > 64<<10 { // a very long line: written in parts
		_, _ = io.WriteString(mw.w, mw.m.mask(mw.buf.String()))
		mw.buf.Reset()
	}
	return len(p), nil
}

// Flush writes a last line without its end.
func (mw *maskWriter) Flush() {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	if mw.buf.Len() > 0 {
		_, _ = io.WriteString(mw.w, mw.m.mask(mw.buf.String()))
		mw.buf.Reset()
	}
}
