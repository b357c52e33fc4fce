package runner

import (
	"context"
	"errors"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/backend"
)

// openCrypter opens the stack's crypter (openCrypterOnce). A backend may
// tell what a state records of its secrets from an index it keeps
// (StateSecrets.Indexed); an index edited by hand can name a salt the
// state does not record, so a refusal is made only on the states
// themselves: the indexed states it may rest on (any whose salt is not
// the stack config's) are read, and the check runs again when one of them
// records something else.
func (s *Session) openCrypter(mayCreate, background bool) (*config.Crypter, error) {
	c, err := s.openCrypterOnce(mayCreate, background)
	if err == nil || errors.Is(err, errNoSalt) || s.states == nil {
		return c, err
	}
	if changed, rerr := s.readIndexedStates(); rerr != nil || !changed {
		return c, err
	}
	return s.openCrypterOnce(mayCreate, background)
}

// readIndexedStates reads, from the states themselves, what the indexed
// states whose salt is not the stack config's record of their secrets;
// true when one records something other than its index told.
func (s *Session) readIndexedStates() (bool, error) {
	b, err := s.Backend()
	if err != nil {
		return false, err
	}
	reader, ok := b.(backend.StateSecretsReader)
	if !ok {
		return false, nil
	}
	salt := s.Config.EncryptionSalt()
	states := append([]backend.StateSecrets(nil), *s.states...)
	changed := false
	for i, st := range states {
		if !st.Indexed || (salt != "" && st.Salt() == salt) {
			continue
		}
		read, err := reader.ReadStateSecrets(context.TODO(), st.Project, s.StackName)
		if err != nil {
			return false, err
		}
		if read.Salt() != st.Salt() || read.HasSecrets != st.HasSecrets || read.Unreadable != nil || providerType(read) != providerType(st) {
			changed = true
		}
		states[i] = read
	}
	s.states = &states
	return changed, nil
}

// providerType is the type of the secrets provider st records ("" when none).
func providerType(st backend.StateSecrets) string {
	if st.Provider == nil {
		return ""
	}
	return st.Provider.Type
}
