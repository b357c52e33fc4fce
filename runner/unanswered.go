package runner

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/runner/prompt"
)

// findings is what validation found across the questions: values missing
// without a terminal to ask, values refused, and questions to ask.
type findings struct {
	missing   []prompt.Missing
	conflicts []error
	toAsk     []providers.Question
}

// unanswered handles a required question whose key is not set: asked on a
// terminal; else given its default (staged, if the question accepts it),
// or listed as missing. A default the question refuses (a kubeconfig path
// that does not exist) is the problem named, and the questions whose
// defaults come from it say so rather than only "missing".
func (s *Session) unanswered(ctx context.Context, q providers.Question, rep *Report, f *findings) error {
	def := s.defaultFor(ctx, q)
	var disagree error
	if def != "" && q.Agrees != nil {
		disagree = q.Agrees(def, s.getter(ctx))
	}
	switch {
	case s.canPrompt():
		f.toAsk = append(f.toAsk, q)
	case disagree != nil: // never write a default that contradicts an answer
		f.missing = append(f.missing, prompt.Missing{Key: q.Key, Message: fmt.Sprintf("%s (the default %s does not fit: %v)", q.Message, def, disagree), Secret: q.Secret})
	case def != "":
		if bad := check(q, s.choices(ctx, q), def); bad != nil {
			f.conflicts = append(f.conflicts, fmt.Errorf("%s is not set, and its default %s %w; set it with `runner config set %s%s <value>`",
				q.Key, shownValue(q, def), bad, secretFlag(q.Secret), q.Key))
			return nil
		}
		return s.stageDefault(ctx, q, def, rep)
	default:
		msg := q.Message
		if q.DefaultFrom != nil && len(f.conflicts) > 0 {
			msg += " (its default comes from the values above: fix them first)"
		}
		f.missing = append(f.missing, prompt.Missing{Key: q.Key, Message: msg, Secret: q.Secret})
	}
	return nil
}

// stageDefault sets q's key to its default def in the session's config,
// staged for saveConfig, and reports it.
func (s *Session) stageDefault(ctx context.Context, q providers.Question, def string, rep *Report) error {
	if err := s.setValue(ctx, q.Key, def, q.Secret); err != nil {
		return err
	}
	rep.Defaulted = append(rep.Defaulted, q.Key)
	if rep.Defaults == nil {
		rep.Defaults = map[string]string{}
	}
	rep.Defaults[q.Key] = def
	if q.Secret {
		rep.Defaults[q.Key] = "[secret]"
	}
	return nil
}

// shownValue is a value of q as messages show it: quoted, or [secret].
func shownValue(q providers.Question, v string) string {
	if q.Secret {
		return "[secret]"
	}
	return fmt.Sprintf("%q", v)
}
