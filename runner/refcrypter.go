package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/resource"
)

// referenceCrypters opens, for stack references, the crypters of other
// stacks' states: each stack has a salt of its own. A referenced state is
// read with the salt it records (as Pulumi reads a stack's outputs with
// its recorded secrets provider), else with the encryptionsalt of its
// stack's config file, and with the passphrase of this run. Nothing is
// written, and each salt is opened once.
type referenceCrypters struct {
	s      *Session
	mu     sync.Mutex
	bySalt map[string]*config.Crypter
}

// open returns the crypter of project's state on stack; nil when neither
// records a salt, so that nothing there is encrypted.
func (r *referenceCrypters) open(ctx context.Context, project, stack string) (resource.Crypter, error) {
	salt, what, err := r.salt(ctx, project, stack)
	if err != nil || salt == "" {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.bySalt[salt]; c != nil {
		return c, nil
	}
	pass, err := r.s.passphrase(false)
	if err != nil {
		return nil, err
	}
	c, err := config.OpenCrypter(pass.Value, salt, config.WithIterations(r.s.Opts.KeyIterations))
	if errors.Is(err, config.ErrIncorrectPassphrase) {
		return nil, Invalid(fmt.Errorf("%w for stack %s: the passphrase from %s (stack %s's) does not open %s; a run reads the stacks it references with its own passphrase",
			err, stack, pass.Source, r.s.StackName, what))
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	if r.bySalt == nil {
		r.bySalt = map[string]*config.Crypter{}
	}
	r.bySalt[salt] = c
	return c, nil
}

// salt returns the salt of project's state on stack and names where it
// was found: the state's record, else the stack config's encryptionsalt.
func (r *referenceCrypters) salt(ctx context.Context, project, stack string) (salt, what string, err error) {
	b, err := r.s.Backend()
	if err != nil {
		return "", "", err
	}
	states, err := b.StackSecrets(ctx, stack)
	if err != nil {
		return "", "", fmt.Errorf("reading how the state of stack %s is encrypted: %w", stack, err)
	}
	for _, st := range states {
		if st.Project == project && st.Salt() != "" {
			return st.Salt(), "the salt recorded in " + stateName(st), nil
		}
	}
	path := StackConfigPath(r.s.Workspace, stack)
	cfg, err := config.LoadStack(path)
	if err != nil {
		return "", "", Invalid(err)
	}
	if salt := cfg.EncryptionSalt(); salt != "" {
		return salt, "the encryptionsalt of " + path, nil
	}
	return "", "", nil
}
