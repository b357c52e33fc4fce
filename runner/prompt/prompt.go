// Package prompt asks for missing config: interactively on a terminal
// (survey/v2, each answer validated and asked again when bad), or, without
// one, by failing with every missing key and the command that sets it.
package prompt

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/AlecAivazis/survey/v2"
	"github.com/AlecAivazis/survey/v2/terminal"

	"github.com/runnerhq/runner/runner/term"
)

// Asker asks one question at a time.
type Asker interface {
	Input(message, def, help string, validate func(string) error) (string, error)
	Password(message, help string, validate func(string) error) (string, error)
	Select(message string, choices []string, def, help string) (string, error)
	Confirm(message string, def bool) (bool, error)
}

// ErrInterrupted is returned when the user presses Ctrl-C at a prompt.
var ErrInterrupted = errors.New("interrupted at a prompt")

// Survey asks on the terminal with survey/v2.
type Survey struct{ IO *term.IO }

var _ Asker = Survey{}

func (s Survey) opts(validate func(string) error) []survey.AskOpt {
	in, _ := s.IO.In.(terminal.FileReader)
	out, _ := s.IO.Out.(terminal.FileWriter)
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	o := []survey.AskOpt{survey.WithStdio(in, out, s.IO.Err)}
	if validate != nil {
		o = append(o, survey.WithValidator(func(ans any) error {
			str, _ := ans.(string)
			if c, ok := ans.(survey.OptionAnswer); ok {
				str = c.Value
			}
			return validate(str)
		}))
	}
	return o
}

func interrupted(err error) error {
	if errors.Is(err, terminal.InterruptErr) {
		return ErrInterrupted
	}
	return err
}

// Input asks for a value shown as typed.
func (s Survey) Input(message, def, help string, validate func(string) error) (string, error) {
	var ans string
	err := survey.AskOne(&survey.Input{Message: message, Default: def, Help: help}, &ans, s.opts(validate)...)
	return ans, interrupted(err)
}

// Password asks for a value without echo.
func (s Survey) Password(message, help string, validate func(string) error) (string, error) {
	var ans string
	err := survey.AskOne(&survey.Password{Message: message, Help: help}, &ans, s.opts(validate)...)
	return ans, interrupted(err)
}

// Select asks to pick one of choices.
func (s Survey) Select(message string, choices []string, def, help string) (string, error) {
	var ans string
	p := &survey.Select{Message: message, Options: choices, Help: help}
	if def != "" {
		p.Default = def
	}
	err := survey.AskOne(p, &ans, s.opts(nil)...)
	return ans, interrupted(err)
}

// Confirm asks yes or no.
func (s Survey) Confirm(message string, def bool) (bool, error) {
	var ans bool
	err := survey.AskOne(&survey.Confirm{Message: message, Default: def}, &ans, s.opts(nil)...)
	return ans, interrupted(err)
}

// Missing is one config key that has no value.
type Missing struct {
	Key     string
	Message string
	Secret  bool
}

// MissingConfigError lists every missing key, each with the command that
// sets it; it is what a run without a terminal gets instead of prompts.
type MissingConfigError struct {
	Stack   string
	File    string
	Missing []Missing
}

func (e *MissingConfigError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "stack %s is missing %d config value", e.Stack, len(e.Missing))
	if len(e.Missing) != 1 {
		b.WriteString("s")
	}
	fmt.Fprintf(&b, " in %s, and there is no terminal to ask for them; set them with:\n", e.File)
	for _, m := range e.Missing {
		secret := ""
		if m.Secret {
			secret = "--secret "
		}
		fmt.Fprintf(&b, "  runner --stack %s config set %s%s <value>   # %s\n", e.Stack, secret, m.Key, m.Message)
	}
	return strings.TrimRight(b.String(), "\n")
}

// ErrYesRequired is returned when a confirmation is needed and cannot be asked.
var ErrYesRequired = errors.New("--yes is required when not running interactively")

// Confirm asks message on a terminal; without one it fails with
// ErrYesRequired unless yes is set.
func Confirm(io *term.IO, a Asker, message string, yes bool) (bool, error) {
	if yes {
		return true, nil
	}
	if !io.CanPrompt() {
		return false, ErrYesRequired
	}
	return a.Confirm(message, false)
}
