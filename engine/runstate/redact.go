package runstate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
)

// RedactedError is an error whose message has had secret values removed.
type RedactedError struct {
	Msg string
	Err error
}

func (e *RedactedError) Error() string { return e.Msg }
func (e *RedactedError) Unwrap() error { return e.Err }

// Redacted returns err with msg as its message, the secrets of maps
// removed from it.
func Redacted(msg string, err error, maps ...resource.PropertyMap) error {
	return &RedactedError{Msg: Redact(msg, maps...), Err: err}
}

// RedactErr returns err with the secrets of res removed from its message.
func RedactErr(err error, res *state.Resource) error {
	return Redacted(err.Error(), err, res.Inputs, res.Outputs)
}

// StepError names the step and resource in err and redacts the secrets of
// the given property maps from its message.
func StepError(op plan.Op, r *source.Registration, err error, secretsFrom ...resource.PropertyMap) error {
	return Redacted(fmt.Sprintf("%s %s %q: %v", op, r.Type, r.Name, err), err, secretsFrom...)
}

// Redact replaces in msg every plaintext of a secret held by maps with
// "[secret]". Very short secrets (under 3 characters) are left alone: they
// would match too much text to be worth hiding.
func Redact(msg string, maps ...resource.PropertyMap) string {
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
