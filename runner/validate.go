package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/runner/prompt"
)

// Report is what validation found.
type Report struct {
	// Asked lists the keys answered at a prompt (and saved).
	Asked []string
	// Defaulted lists the keys set to their default (staged: saved with
	// the answers, or by up), and Defaults their values ("[secret]" for a
	// secret).
	Defaulted []string
	Defaults  map[string]string
	// Warnings are things runner accepted but that deserve attention,
	// each naming the key and its line.
	Warnings []string
}

// Validate checks the stack config against the provider's questions. On a
// terminal it asks for what is missing, validating each answer and asking
// again on a bad one, and saves the answers (secrets encrypted). Without a
// terminal, missing keys that have a default get it; the others make a
// *prompt.MissingConfigError that lists them all (a ValidationError).
// Defaults alone are only staged (in memory), never written: a read-only
// command (preview, validate with nothing to ask) leaves the file as it
// is, and up saves them once it runs (saveConfig).
func (s *Session) Validate(ctx context.Context) (*Report, error) {
	rep := &Report{}
	fresh := s.configMissing()
	if err := s.validate(ctx, rep); err != nil {
		s.dropHalfMade(fresh, err)
		if len(rep.Warnings) > 0 {
			err = &warnedError{err: err, warnings: rep.Warnings}
		}
		return rep, err
	}
	return rep, nil
}

// warnedError is a failed validation that also carries the warnings found
// before it failed, so that a run that stops still names every problem of
// the file (a bad key and its line, a secret in plain text).
type warnedError struct {
	err      error
	warnings []string
}

func (e *warnedError) Error() string {
	var b strings.Builder
	b.WriteString(e.err.Error())
	b.WriteString("\nthe stack config also has these problems:")
	for _, w := range e.warnings {
		b.WriteString("\n  warning: " + w)
	}
	return b.String()
}

func (e *warnedError) Unwrap() error { return e.err }

func (s *Session) validate(ctx context.Context, rep *Report) error {
	for _, p := range s.Config.Problems() {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s line %d: %s: %s; runner ignores it", s.ConfigPath, p.Line, p.Key, p.Msg))
	}
	var f findings
	for _, q := range s.Provider.Questions {
		if s.ownHas(q) { // a user project's own stack file answers it
			continue
		}
		present, bad, err := s.checkPresent(ctx, q, rep)
		if err != nil {
			return err
		}
		if bad != nil { // listed with the other problems, or asked again
			if !s.canPrompt() {
				f.conflicts = append(f.conflicts, bad)
				continue
			}
			fmt.Fprintf(s.IO().Err, "%v\n", bad)
			f.toAsk = append(f.toAsk, q)
			continue
		}
		if present {
			if err := s.agrees(ctx, q); err != nil {
				if !s.canPrompt() {
					f.conflicts = append(f.conflicts, err)
					continue
				}
				fmt.Fprintf(s.IO().Err, "%v\n", err)
				f.toAsk = append(f.toAsk, q) // asked again
			}
			continue
		}
		if name := s.setByEnv(q); name != "" {
			// The value stays out of the message: it is a token.
			if err := check(q, nil, strings.TrimSpace(s.getenv(name))); err != nil {
				f.conflicts = append(f.conflicts, fmt.Errorf("the environment variable %s, which stands for %s, %w; fix it in the environment or the environment file", name, q.Key, err))
			}
			continue
		}
		if q.Optional {
			continue
		}
		if err := s.unanswered(ctx, q, rep, &f); err != nil {
			return err
		}
	}
	if len(f.conflicts) > 0 || len(f.missing) > 0 {
		// Listed with the rest, so that one run names every problem.
		if err := s.validateWhole(ctx); err != nil {
			f.conflicts = append(f.conflicts, err)
		}
	}
	if len(f.missing) > 0 {
		f.conflicts = append(f.conflicts, &prompt.MissingConfigError{Stack: s.StackName, File: s.ConfigPath, Missing: f.missing})
	}
	if len(f.conflicts) > 0 {
		return Invalid(errors.Join(f.conflicts...))
	}
	for _, q := range f.toAsk {
		if err := s.ask(ctx, q); err != nil {
			return err
		}
		rep.Asked = append(rep.Asked, q.Key)
	}
	if err := s.validateWhole(ctx); err != nil {
		return Invalid(err)
	}
	if len(rep.Asked) == 0 {
		return nil // defaults stay staged: up saves them once it runs
	}
	return s.saveConfig()
}

// canPrompt reports whether validation may ask: a terminal, and not a
// check that writes nothing (dryRun).
func (s *Session) canPrompt() bool { return !s.dryRun && s.IO().CanPrompt() }

// validateWhole checks the config as a whole (Provider.Validate).
func (s *Session) validateWhole(ctx context.Context) error {
	if s.Provider.Validate == nil {
		return nil
	}
	if err := s.Provider.Validate(s.getter(ctx)); err != nil {
		return fmt.Errorf("the config of stack %s (%s) is not valid for provider %s: %w", s.StackName, s.ConfigPath, s.Provider.Name, err)
	}
	return nil
}

// checkPresent reports whether q's key is set and, when its value is not
// accepted, why (bad, which names the file, line and key; then present is
// false); err is a failure to read it.
func (s *Session) checkPresent(ctx context.Context, q providers.Question, rep *Report) (present bool, bad, err error) {
	entry, ok := s.entry(q.Key)
	if !ok {
		return false, nil, nil
	}
	var c *config.Crypter
	if entry.Secure || entry.Structured {
		if c, err = s.ReadCrypter(); err != nil {
			return false, nil, err
		}
	}
	v, _, err := s.Config.Get(ctx, q.Key, false, c)
	if err != nil {
		return false, nil, Invalid(fmt.Errorf("%s line %d: %w", s.ConfigPath, entry.Line, err))
	}
	value := config.Flatten(v)
	if q.Secret && !entry.Secure {
		if err := s.declaredSecret(q); err != nil {
			return false, err, nil // Pulumi refuses it: asked again, or listed
		}
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s line %d: %s is a secret but is stored in plain text; encrypt it with `runner config set --secret %s`", s.ConfigPath, entry.Line, q.Key, q.Key))
	}
	if err := check(q, s.choices(ctx, q), value); err != nil {
		return false, fmt.Errorf("%s line %d: %s is %s, which %w; fix it with `runner config set %s%s <value>`",
			s.ConfigPath, entry.Line, q.Key, shownValue(q, value), err, secretFlag(q.Secret), q.Key), nil
	}
	return true, nil, nil
}

func secretFlag(secret bool) string {
	if secret {
		return "--secret "
	}
	return ""
}

// choices returns the answers q accepts (nil: any its validation accepts).
func (s *Session) choices(ctx context.Context, q providers.Question) []string {
	if len(q.Choices) > 0 || q.ChoicesFrom == nil {
		return q.Choices
	}
	return q.ChoicesFrom(s.getter(ctx))
}

// check checks an answer v of q against its choices and its validation.
func check(q providers.Question, choices []string, v string) error {
	if len(choices) > 0 {
		for _, c := range choices {
			if c == v {
				return nil
			}
		}
		return fmt.Errorf("is not one of %s", strings.Join(choices, ", "))
	}
	if q.Validate != nil {
		if err := q.Validate(v); err != nil {
			return fmt.Errorf("is not accepted: it %w", err)
		}
		return nil
	}
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("is empty")
	}
	return nil
}

func (s *Session) entry(key string) (config.Entry, bool) {
	for _, e := range s.Config.Entries() {
		if e.Key == key {
			return e, true
		}
	}
	return config.Entry{}, false
}

// ask asks one question until the answer is valid, then stores it.
func (s *Session) ask(ctx context.Context, q providers.Question) error {
	a := s.asker()
	choices := s.choices(ctx, q)
	validate := func(v string) error {
		if err := check(q, choices, v); err != nil {
			return fmt.Errorf("%s %w", q.Key, err)
		}
		if q.Agrees != nil {
			if err := q.Agrees(v, s.getter(ctx)); err != nil {
				return fmt.Errorf("%s: %w", q.Key, err)
			}
		}
		return nil
	}
	def := s.defaultFor(ctx, q)
	if def != "" && q.Agrees != nil && q.Agrees(def, s.getter(ctx)) != nil {
		def = "" // a default must not contradict an answer already given
	}
	if q.Secret {
		// The passphrase comes first, so that a new stack's passphrase is
		// not asked between a secret and the next question.
		if _, err := s.Crypter(); err != nil {
			return err
		}
	}
	var v string
	var err error
	msg := fmt.Sprintf("%s (%s)", q.Message, q.Key)
	switch {
	case q.Secret:
		v, err = a.Password(msg, q.Help, validate)
	case len(choices) > 0:
		v, err = a.Select(msg, choices, def, q.Help)
	default:
		v, err = a.Input(msg, def, q.Help, validate)
	}
	if err != nil {
		return fmt.Errorf("asking for %s: %w", q.Key, err)
	}
	return s.setValue(ctx, q.Key, v, q.Secret)
}

func (s *Session) setValue(ctx context.Context, key, value string, secret bool) error {
	var c *config.Crypter
	if secret {
		var err error
		if c, err = s.Crypter(); err != nil {
			return err
		}
	}
	return s.stage(func(st *config.Stack) error {
		return st.Set(ctx, key, value, secret, false, c)
	})
}

// defaultFor returns q's default: derived from the answers already given
// when the question can, else its own (possibly from the environment).
func (s *Session) defaultFor(ctx context.Context, q providers.Question) string {
	if q.DefaultFrom != nil {
		if d := q.DefaultFrom(s.getter(ctx)); d != "" {
			return d
		}
	}
	if q.Default != nil {
		return q.Default(s.getenv)
	}
	return ""
}

// agrees checks a present value of q against the other answers, naming
// both keys and their lines when they disagree.
func (s *Session) agrees(ctx context.Context, q providers.Question) error {
	if q.Agrees == nil {
		return nil
	}
	get := s.getter(ctx)
	value, ok := get(q.Key)
	if !ok {
		return nil
	}
	var read []string
	err := q.Agrees(value, func(key string) (string, bool) {
		read = append(read, key)
		return get(key)
	})
	if err == nil {
		return nil
	}
	entry, _ := s.entry(q.Key)
	var others []string
	for _, k := range read {
		if e, ok := s.entry(k); ok && e.Line > 0 {
			others = append(others, fmt.Sprintf("%s (line %d)", k, e.Line))
		}
	}
	with := ""
	if len(others) > 0 {
		with = " with " + strings.Join(others, ", ")
	}
	return fmt.Errorf("%s line %d: %s %q does not agree%s: %w", s.ConfigPath, entry.Line, q.Key, value, with, err)
}

// getter returns config values as strings for a provider's Validate.
func (s *Session) getter(ctx context.Context) func(string) (string, bool) {
	return func(key string) (string, bool) {
		e, ok := s.entry(key)
		if !ok || e.Secure {
			return "", false
		}
		v, ok, err := s.Config.Get(ctx, key, false, nil)
		if err != nil || !ok {
			return "", false
		}
		return config.Flatten(v), true
	}
}

// setByEnv returns the first of the environment variables that answer q
// in its place (Question.SetBy) set in the run's environment ("": none).
func (s *Session) setByEnv(q providers.Question) string {
	for _, name := range q.SetBy {
		if strings.TrimSpace(s.getenv(name)) != "" {
			return name
		}
	}
	return ""
}
