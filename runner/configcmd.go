package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/internal/boundedfile"
)

// Secrets says what a config command does with secret values. Each command
// declares it, so that the crypter (and the passphrase) is needed only by
// a command that shows secrets, and then only for a value that holds one.
type Secrets int

const (
	// Redact shows secrets as [secret]; the crypter is never opened.
	Redact Secrets = iota
	// Reveal shows secrets in plain text: the crypter is opened when a value
	// read holds a secret.
	Reveal
)

// ConfigGetOptions are the arguments of `config get`.
type ConfigGetOptions struct {
	Key string
	// Path reads a path into a structured value: ns:key.field[0].
	Path bool
	// Secrets is Reveal: get prints a secret in plain text, as Pulumi does.
	Secrets Secrets
}

// ConfigGet prints one config value: a string as it is, anything else (or
// any value with --json) as JSON.
func ConfigGet(ctx context.Context, opts Options, o ConfigGetOptions) error {
	s, err := OpenRead(opts)
	if err != nil {
		return err
	}
	v, ok, err := s.configValue(ctx, o.Key, o.Path, o.Secrets)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the config key %s is not set on stack %s", o.Key, s.StackName)
	}
	return OutputOf(opts).Object(v, func(w io.Writer) error {
		if str, ok := v.(string); ok {
			_, err := fmt.Fprintln(w, str)
			return err
		}
		return json.NewEncoder(w).Encode(v)
	})
}

// ConfigListOptions are the flags of `config ls`.
type ConfigListOptions struct {
	// Secrets is Reveal with --show-secrets, else Redact.
	Secrets Secrets
}

// configItem is one key of `config ls --json`.
type configItem struct {
	Value  any  `json:"value"`
	Secret bool `json:"secret"`
}

// ConfigList prints every config value in file order: a table, or with
// --json a document keyed by config key.
func ConfigList(ctx context.Context, opts Options, o ConfigListOptions) error {
	s, err := OpenRead(opts)
	if err != nil {
		return err
	}
	items := map[string]configItem{}
	var keys []string
	for _, e := range s.Config.Entries() {
		keys = append(keys, e.Key)
		var v any = e.Value
		switch {
		case e.Secure && o.Secrets == Redact:
			v = "[secret]"
		case e.Secure || e.Structured:
			// Secret leaves of a redacted structured value show as [secret].
			if v, _, err = s.configValue(ctx, e.Key, false, o.Secrets); err != nil {
				return err
			}
		}
		items[e.Key] = configItem{Value: v, Secret: e.Secure}
	}
	return OutputOf(opts).Listing(items, func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "KEY\tVALUE")
		for _, k := range keys {
			v := items[k].Value
			text := fmt.Sprint(v)
			if _, ok := v.(string); !ok {
				b, _ := json.Marshal(v)
				text = string(b)
			}
			fmt.Fprintf(tw, "%s\t%s\n", k, text)
		}
		return tw.Flush()
	})
}

// configValue reads key as `config get --json` shows it. With Reveal, the
// crypter is opened when the value holds a secret, and the value comes back
// in plain text; with Redact its secrets stay config.Secret values that
// show as [secret].
func (s *Session) configValue(ctx context.Context, key string, path bool, secrets Secrets) (any, bool, error) {
	v, ok, err := s.Config.Typed(ctx, key, path, nil)
	if err != nil {
		return nil, false, Invalid(err)
	}
	if !ok || secrets == Redact || !holdsSecret(v) {
		return v, ok, nil
	}
	cr, err := s.ReadCrypter()
	if err != nil {
		return nil, false, err
	}
	if v, ok, err = s.Config.Typed(ctx, key, path, cr); err != nil {
		return nil, false, Invalid(err)
	}
	return revealConfig(v), ok, nil
}

// holdsSecret reports whether v is or contains a config.Secret.
func holdsSecret(v any) bool {
	return !resource.Walk(v, func(x any, _ bool) bool {
		_, isSecret := x.(config.Secret)
		return !isSecret
	})
}

// revealConfig turns config.Secret values into their plaintext.
func revealConfig(v any) any {
	return resource.Map(v, func(x any) (any, bool) {
		if s, ok := x.(config.Secret); ok {
			return s.Reveal(), true
		}
		return nil, false
	})
}

// ConfigSetOptions are the arguments and flags of `config set`.
type ConfigSetOptions struct {
	Key string
	// Value is the value; without ValueGiven it is read from stdin.
	Value      string
	ValueGiven bool
	Secret     bool
	Path       bool
}

// ConfigSet sets one config value, creating the stack config if need be.
func ConfigSet(ctx context.Context, opts Options, o ConfigSetOptions) error {
	if !o.ValueGiven {
		tio := streams(opts)
		if tio.StdinTTY {
			return Usage(fmt.Errorf("config set %s: give the value as an argument, or pipe it in", o.Key))
		}
		b, err := boundedfile.ReadAll(ctx, tio.In, "", boundedfile.Value)
		if boundedfile.IsRefused(err) {
			return Invalid(fmt.Errorf("config set %s: %w", o.Key, err))
		}
		if err != nil {
			return fmt.Errorf("reading the value from stdin: %w", err)
		}
		o.Value = strings.TrimRight(string(b), "\r\n")
	}
	s, err := Open(opts)
	if err != nil {
		return err
	}
	return s.SetConfig(ctx, o.Key, o.Value, o.Secret, o.Path)
}

// ConfigRemoveOptions are the arguments and flags of `config rm`.
type ConfigRemoveOptions struct {
	Key  string
	Path bool
}

// ConfigRemove removes one config value. The stack must exist: removing
// from one that does not is a *NoStackError (exit 3), and writes nothing
// (no config file, no PULUMI_STACK line).
func ConfigRemove(_ context.Context, opts Options, o ConfigRemoveOptions) error {
	s, err := OpenExisting(opts)
	if err != nil {
		return err
	}
	return s.RemoveConfig(o.Key, o.Path)
}
