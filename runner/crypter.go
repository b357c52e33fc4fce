package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/state"
)

// errNoSalt is returned by openCrypter(false, ...) for a stack with no salt and
// no secret anywhere.
var errNoSalt = errors.New("the stack has no encryptionsalt")

// Crypter returns the stack's passphrase crypter. Its salt keeps every
// secret of the stack readable, as Pulumi reads state with the salt the
// snapshot records:
//   - the stack config's encryptionsalt, when every state of the stack that
//     records a salt records the same one (else an error names the file and
//     the state that disagree);
//   - when the stack config has none, the salt the stack's states record,
//     checked against the passphrase and then written into the stack config;
//   - a fresh salt, written into the stack config, only for a stack with no
//     secret anywhere (neither in its config nor in any state).
//
// The passphrase comes from PULUMI_CONFIG_PASSPHRASE, then
// PULUMI_CONFIG_PASSPHRASE_FILE, then a prompt on a terminal; a wrong one
// is an error naming where it came from.
func (s *Session) Crypter() (*config.Crypter, error) {
	return s.openCrypter(true, false)
}

// operationCrypter is Crypter for an operation: when the stack config has
// its salt, the passphrase is checked in the background while the run
// starts (config.OpenCrypterAsync), and the caller waits for the check
// (Crypter.Wait) before anything may change.
func (s *Session) operationCrypter() (*config.Crypter, error) {
	return s.openCrypter(true, true)
}

// ReadCrypter returns the crypter for reading what the stack holds, or nil
// when the stack has no salt and no secret anywhere (so there is nothing
// to decrypt): unlike Crypter, it never writes a fresh salt.
func (s *Session) ReadCrypter() (*config.Crypter, error) {
	c, err := s.openCrypter(false, false)
	if errors.Is(err, errNoSalt) {
		return nil, nil
	}
	return c, err
}

func (s *Session) openCrypterOnce(mayCreate, background bool) (*config.Crypter, error) {
	if s.crypter != nil {
		return s.crypter, nil
	}
	salt := s.Config.EncryptionSalt()
	var c *config.Crypter
	if salt != "" && background {
		// The key is derived while the states are read.
		var err error
		if c, err = s.openWith(salt, "the encryptionsalt of "+s.ConfigPath, background); err != nil {
			return nil, err
		}
	}
	states, err := s.stateSecrets()
	if err != nil {
		return nil, err
	}
	if salt != "" {
		others, err := s.otherStateSalts(salt, states)
		if err != nil {
			return nil, err
		}
		if c == nil {
			if c, err = s.openWith(salt, "the encryptionsalt of "+s.ConfigPath, background); err != nil {
				return nil, err
			}
		}
		if len(others) > 0 {
			// The stack config's own secrets must open with its own salt:
			// else the file was replaced or its salt line edited, and what
			// runner writes next would leave them unreadable.
			if _, err := s.Config.Values(context.Background(), c); err != nil {
				return nil, Invalid(fmt.Errorf("the encryptionsalt of %s differs from the salt recorded in %s, and the file's own secrets do not open with its salt (%w); "+
					"if the stack config was replaced, put back the salt the state records (encryptionsalt: %s)", s.ConfigPath, others[0].what, err, others[0].c.EncryptionSalt()))
			}
			for _, o := range others {
				c.ReadsAlso(o.c)
			}
		}
	} else {
		c, err = s.cryptFromStates(states, mayCreate)
	}
	if err != nil {
		return nil, err
	}
	s.crypter = c
	return c, nil
}

// cryptFromStates opens the crypter of a stack config without salt: with
// the salt its states record, else (mayCreate, and no secret anywhere) a
// fresh one. The salt is written into the stack config.
func (s *Session) cryptFromStates(states []backend.StateSecrets, mayCreate bool) (*config.Crypter, error) {
	salt, from, err := s.stateSalt(states)
	if err != nil {
		return nil, err
	}
	if salt != "" {
		c, err := s.openWith(salt, from, false)
		if err != nil {
			return nil, err
		}
		if err := s.adoptSalt(salt, from); err != nil {
			return nil, err
		}
		fmt.Fprintf(s.IO().Err, "warning: %s had no encryptionsalt; wrote into it %s\n", s.ConfigPath, from)
		return c, nil
	}
	if err := s.checkNoSecrets(states); err != nil {
		return nil, err
	}
	if !mayCreate {
		return nil, errNoSalt
	}
	return s.freshCrypter()
}

// stateSecrets reads what each project's state on the stack records of its
// secrets. A backend folder that does not exist yet holds no state (and is
// not created).
func (s *Session) stateSecrets() ([]backend.StateSecrets, error) {
	if s.states != nil {
		return *s.states, nil
	}
	b, err := s.Backend()
	if err != nil {
		return nil, err
	}
	states, err := b.StackSecrets(context.TODO(), s.StackName)
	if err != nil {
		return nil, Invalid(fmt.Errorf("reading how the state of stack %s is encrypted: %w", s.StackName, err))
	}
	s.states = &states // read once per command: the salt checks need it more than once
	return states, nil
}

// stateName names a project's state for messages.
func stateName(st backend.StateSecrets) string {
	return fmt.Sprintf("the state of project %s (%s)", st.Project, st.Path)
}

// otherStateSalts returns crypters for the salts that states of the stack
// record besides the stack config's salt: a project state the Pulumi CLI
// wrote in place records its own stack config's salt (Pulumi.<stack>.yaml
// beside Pulumi.yaml). Each must open with the passphrase; else the stack
// config is refused, naming the state and its salt. runner's next write of
// such a state encrypts it with the stack's salt.
func (s *Session) otherStateSalts(salt string, states []backend.StateSecrets) ([]otherSalt, error) {
	var out []otherSalt
	seen := map[string]bool{salt: true}
	for _, st := range states {
		other := st.Salt()
		if other == "" || seen[other] {
			continue
		}
		seen[other] = true
		c, err := s.openWith(other, "the salt recorded in "+stateName(st), false)
		if err != nil {
			return nil, Invalid(fmt.Errorf("the encryptionsalt of %s differs from the salt recorded in %s, and the passphrase does not open that salt either (%w); "+
				"if that state was written with another passphrase (re-keyed), run again with that passphrase or restore an earlier copy with `runner --stack %s stack import --project %s --file COPY`; "+
				"if the stack config was replaced, put back the salt the state records (encryptionsalt: %s)", s.ConfigPath, stateName(st), err, s.StackName, st.Project, other))
		}
		out = append(out, otherSalt{c: c, what: stateName(st)})
	}
	return out, nil
}

// otherSalt is the crypter of a salt a state records, and that state.
type otherSalt struct {
	c    *config.Crypter
	what string
}

// stateSalt returns the salt the stack's states record ("" when none does)
// and names where it was found. States that record different salts are an
// error naming two of them.
func (s *Session) stateSalt(states []backend.StateSecrets) (salt, from string, err error) {
	var first backend.StateSecrets
	for _, st := range states {
		v := st.Salt()
		switch {
		case v == "":
		case salt == "":
			salt, first = v, st
		case v != salt:
			return "", "", Invalid(fmt.Errorf("%s has no encryptionsalt, and the states of stack %s record different salts: %s and %s; put the right encryptionsalt into %s",
				s.ConfigPath, s.StackName, stateName(first), stateName(st), s.ConfigPath))
		}
	}
	if salt == "" {
		return "", "", nil
	}
	return salt, "the salt recorded in " + stateName(first), nil
}

// checkNoSecrets refuses to make a fresh salt for a stack that holds
// secrets: they were encrypted under a salt that is lost, and a new one
// would hide that behind a "wrong passphrase".
func (s *Session) checkNoSecrets(states []backend.StateSecrets) error {
	if secrets := s.Config.SecretEntries(); len(secrets) > 0 {
		e := secrets[0]
		return Invalid(fmt.Errorf("%s line %d: %s is a secret, but the file has no encryptionsalt to decrypt it and no state of stack %s records one; "+
			"put back the file's encryptionsalt line (from a backup or version control), or remove its secret values and set them again", s.ConfigPath, e.Line, e.Key, s.StackName))
	}
	for _, st := range states {
		if st.Unreadable != nil {
			return Invalid(fmt.Errorf("%s has no encryptionsalt, and %s cannot be read, so the salt of its secrets is unknown: %w; "+
				"restore that state with `runner --stack %s stack import --project %s --file COPY` (copies are in its history folder), or put back the file's encryptionsalt line",
				s.ConfigPath, stateName(st), st.Unreadable, s.StackName, st.Project))
		}
		if st.Provider != nil && st.Provider.Type != "passphrase" {
			return Invalid(fmt.Errorf("%s records a %q secrets provider, which runner cannot open, and %s has no encryptionsalt; runner keeps secrets with a passphrase only",
				stateName(st), st.Provider.Type, s.ConfigPath))
		}
		if st.HasSecrets {
			return Invalid(fmt.Errorf("%s holds secrets but records no salt to decrypt them, and %s has no encryptionsalt; put back the file's encryptionsalt line (from a backup or version control)",
				stateName(st), s.ConfigPath))
		}
	}
	return nil
}

// openWith checks the passphrase against salt (what names it for
// messages); in the background, the check's error comes from the
// crypter's Wait (and its other methods).
func (s *Session) openWith(salt, what string, background bool) (*config.Crypter, error) {
	pass, err := s.passphrase(false)
	if err != nil {
		return nil, err
	}
	if background {
		explain := func(err error) error { return s.passphraseError(err, pass, what) }
		c, err := config.OpenCrypterAsync(pass.Value, salt, explain, config.WithIterations(s.Opts.KeyIterations))
		if err != nil {
			return nil, s.passphraseError(err, pass, what)
		}
		return c, nil
	}
	return s.openWithPassphrase(pass, salt, what)
}

func (s *Session) openWithPassphrase(pass config.Passphrase, salt, what string) (*config.Crypter, error) {
	c, err := config.OpenCrypter(pass.Value, salt, config.WithIterations(s.Opts.KeyIterations))
	if err != nil {
		return nil, s.passphraseError(err, pass, what)
	}
	return c, nil
}

// passphraseError is the validation error of a passphrase that does not
// open salt (what names it), or of a salt that cannot be read.
func (s *Session) passphraseError(err error, pass config.Passphrase, what string) error {
	if errors.Is(err, config.ErrIncorrectPassphrase) {
		return Invalid(fmt.Errorf("%w for stack %s: the passphrase from %s does not open %s; %s", err, s.StackName, pass.Source, what, pass.Fix))
	}
	return Invalid(fmt.Errorf("reading %s: %w", what, err))
}

// adoptSalt writes salt (from a state) into a stack config that has none.
func (s *Session) adoptSalt(salt, from string) error {
	_, err := s.updateFile(func(st *config.Stack) error {
		switch cur := st.EncryptionSalt(); {
		case cur == "":
			st.SetEncryptionSalt(salt)
		case cur != salt:
			return Invalid(fmt.Errorf("another command wrote an encryptionsalt into %s that differs from %s; check the file and run this command again", s.ConfigPath, from))
		}
		return nil
	})
	return err
}

// freshCrypter makes a new salt for the passphrase (asked twice on a
// terminal) and writes it into the stack config. If another command wrote
// one meanwhile, that one is used.
func (s *Session) freshCrypter() (*config.Crypter, error) {
	pass, err := s.passphrase(true)
	if err != nil {
		return nil, err
	}
	c, err := config.NewCrypter(pass.Value, config.WithIterations(s.Opts.KeyIterations))
	if err != nil {
		return nil, err
	}
	existing, err := s.updateFile(func(st *config.Stack) error {
		if st.EncryptionSalt() == "" {
			st.SetEncryptionSalt(c.EncryptionSalt())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if salt := existing.EncryptionSalt(); salt != c.EncryptionSalt() {
		// The key is derived outside the file's lock: it takes a second.
		return s.openWithPassphrase(pass, salt, "the encryptionsalt of "+s.ConfigPath)
	}
	return c, nil
}

// updateFile changes the stack config on disk under its lock and records
// in the session's config the salt it then holds (the session's other
// changes, staged by validation, stay as they are). It returns the file as
// written.
func (s *Session) updateFile(edit func(*config.Stack) error) (*config.Stack, error) {
	st, err := config.UpdateStack(s.ConfigPath, edit)
	if err != nil {
		return nil, fileError(err)
	}
	if salt := st.EncryptionSalt(); salt != "" && salt != s.Config.EncryptionSalt() {
		s.Config.SetEncryptionSalt(salt)
	}
	return st, nil
}

// fileError makes a stack config that cannot be read a validation error.
func fileError(err error) error {
	var pe *config.ParseError
	var de *config.DuplicateKeyError
	if errors.As(err, &pe) || errors.As(err, &de) {
		return Invalid(err)
	}
	return err
}

// passphrase returns the stack's passphrase and where it came from.
func (s *Session) passphrase(isNew bool) (config.Passphrase, error) {
	if s.pass != nil {
		return *s.pass, nil
	}
	p, err := s.askPassphrase(isNew)
	if err == nil {
		s.pass = &p // asked once a command
	}
	return p, err
}

func (s *Session) askPassphrase(isNew bool) (config.Passphrase, error) {
	p, ok, err := config.PassphraseFromEnv(s.getenv, s.Env)
	if err != nil {
		return p, Invalid(err)
	}
	if ok {
		return p, nil
	}
	io := s.IO()
	if !io.CanPrompt() {
		return p, Invalid(fmt.Errorf("the stack %s needs its passphrase: set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE); there is no terminal to ask for it", s.StackName))
	}
	a := s.asker()
	v, err := a.Password(fmt.Sprintf("Passphrase of stack %s", s.StackName), "protects the stack's secrets", nonEmpty)
	if err != nil {
		return p, err
	}
	if isNew {
		again, err := a.Password("Re-enter the passphrase to confirm", "", nil)
		if err != nil {
			return p, err
		}
		if again != v {
			return p, Invalid(errors.New("the passphrases do not match"))
		}
	}
	return config.PromptedPassphrase(v), nil
}

func nonEmpty(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("must not be empty")
	}
	return nil
}

// SecretsProvider is what the snapshots record of the stack's encryption:
// the salt of the crypter in use.
func (s *Session) SecretsProvider() *state.SecretsProvider {
	salt := s.Config.EncryptionSalt()
	if s.crypter != nil {
		salt = s.crypter.EncryptionSalt()
	}
	if salt == "" {
		return nil
	}
	return state.PassphraseProvider(salt)
}
