package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
)

// redactedError is an error whose message has had secret values removed.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redact replaces in msg every plaintext of a secret held by maps with
// "[secret]". Very short secrets (under 3 characters) are left alone: they
// would match too much text to be worth hiding.
func redact(msg string, maps ...resource.PropertyMap) string {
	var plains []string
	for _, m := range maps {
		for _, v := range m {
			plains = secretPlaintexts(v, plains)
		}
	}
	sort.Slice(plains, func(i, j int) bool { return len(plains[i]) > len(plains[j]) })
	for _, p := range plains {
		if len(p) >= 3 {
			msg = strings.ReplaceAll(msg, p, "[secret]")
		}
	}
	return msg
}

// secretPlaintexts appends the text forms of the secret values inside v.
func secretPlaintexts(v any, out []string) []string {
	resource.Walk(v, func(x any, secret bool) bool {
		if secret {
			switch y := x.(type) {
			case string:
				out = append(out, y)
			case float64, bool:
				out = append(out, fmt.Sprint(y))
			case resource.Asset:
				out = append(out, y.Text) // the text of a secret asset
			}
		}
		return true
	})
	return out
}
