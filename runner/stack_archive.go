package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/state"
)

// Export returns the project's state as Pulumi's deployment v3 JSON, as
// stored (secrets as ciphertext), or with show, each secret's plaintext in
// Pulumi's {"plaintext": ...} form.
func (s *Stacks) Export(ctx context.Context, stack, project string, show bool) ([]byte, error) {
	data, err := s.backend.Export(ctx, project, stack)
	if errors.Is(err, backend.ErrNotFound) {
		return nil, fmt.Errorf("project %s has no state on stack %s", project, stack)
	}
	if err != nil {
		return nil, err
	}
	if !show {
		return pretty(data)
	}
	c, err := s.Crypter(stack)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	doc, err = revealSecrets(ctx, doc, c)
	if err != nil {
		return nil, err
	}
	return marshalIndent(doc)
}

func pretty(data []byte) ([]byte, error) {
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	return marshalIndent(doc)
}

func marshalIndent(doc any) ([]byte, error) {
	out, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// revealSecrets replaces each secret object's ciphertext with its plaintext.
func revealSecrets(ctx context.Context, v any, c *config.Crypter) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if x[state.SigKey] == state.SecretSig {
			if ct, ok := x["ciphertext"].(string); ok {
				pt, err := c.DecryptValue(ctx, ct)
				if err != nil {
					return nil, err
				}
				return map[string]any{state.SigKey: state.SecretSig, "plaintext": pt}, nil
			}
		}
		for k, e := range x {
			r, err := revealSecrets(ctx, e, c)
			if err != nil {
				return nil, err
			}
			x[k] = r
		}
	case []any:
		for i, e := range x {
			r, err := revealSecrets(ctx, e, c)
			if err != nil {
				return nil, err
			}
			x[i] = r
		}
	}
	return v, nil
}

// Import checks data (schema, integrity, URNs of this project and stack,
// secrets that open with the stack's passphrase) and makes it the
// project's state, atomically and under the lock; anything wrong leaves
// the current state untouched. Secrets in plaintext form (an export made
// with --show-secrets) are encrypted with the stack's passphrase first, so
// that no plaintext secret is ever stored.
func (s *Stacks) Import(ctx context.Context, stack, project string, data []byte) error {
	unlock, err := s.lockStack(ctx, stack, "runner stack import", fmt.Sprintf("importing into project %s of stack %s", project, stack))
	if err != nil {
		return err
	}
	defer unlock()
	c, err := s.crypterBesides(ctx, stack, project)
	if err != nil {
		return err
	}
	from, err := s.importCrypter(stack, data, c)
	if err != nil {
		return fmt.Errorf("%w; the current state was left as it was", err)
	}
	if from != nil {
		data, _, err = state.ResealSecrets(ctx, data, from, c, state.PassphraseProvider(c.EncryptionSalt()))
	} else {
		data, _, err = state.SealPlaintextSecrets(ctx, data, c, state.PassphraseProvider(c.EncryptionSalt()))
	}
	if err != nil {
		return Invalid(fmt.Errorf("importing into project %s of stack %s: %w; the current state was left as it was", project, stack, err))
	}
	if err := s.backend.Import(ctx, project, stack, data, c); err != nil {
		return Invalid(fmt.Errorf("%w; the current state was left as it was", err))
	}
	return nil
}

// importCrypter returns the crypter of the passphrase salt that the
// deployment data records when it differs from the stack's (c): an export
// of the Pulumi CLI, whose stack config beside Pulumi.yaml has a salt of its
// own. Its secrets are then encrypted again with the stack's salt, since
// every state of a runner stack shares one. It returns nil when the
// deployment records no passphrase salt or the stack's.
func (s *Stacks) importCrypter(stack string, data []byte, c *config.Crypter) (*config.Crypter, error) {
	var d struct {
		Deployment struct {
			SecretsProviders *struct {
				Type  string `json:"type"`
				State struct {
					Salt string `json:"salt"`
				} `json:"state"`
			} `json:"secrets_providers"`
		} `json:"deployment"`
	}
	if json.Unmarshal(data, &d) != nil || d.Deployment.SecretsProviders == nil {
		return nil, nil // the import's checks name what is wrong
	}
	sp := d.Deployment.SecretsProviders
	if sp.Type != "passphrase" || sp.State.Salt == "" || sp.State.Salt == c.EncryptionSalt() {
		return nil, nil
	}
	sess, err := s.session(stack)
	if err != nil {
		return nil, err
	}
	return sess.openWith(sp.State.Salt, "the secrets of the deployment (its secrets provider's salt)", false)
}

// Repair makes a project's state on stack (every project's, when project
// is "") loadable again, as `pulumi state repair` does: a leftover journal
// is folded in, dangling parent, provider and dependency references are
// resolved, the resources are put in dependency order, and pending
// operations are cleared (once the user has checked the resources they
// name). It returns one line per change.
func (s *Stacks) Repair(ctx context.Context, stack, project string) (string, error) {
	what := "stack " + stack
	if project != "" {
		what = fmt.Sprintf("project %s of stack %s", project, stack)
	}
	unlock, err := s.lockStack(ctx, stack, "runner stack repair", "repairing "+what)
	if err != nil {
		return "", err
	}
	defer unlock()
	c, err := s.Crypter(stack)
	if err != nil {
		return "", err
	}
	projects := []string{project}
	if project == "" {
		if projects, err = s.backend.Projects(ctx, stack); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	for _, p := range projects {
		changes, err := s.backend.Repair(ctx, p, stack, c)
		if err != nil {
			return b.String(), err
		}
		if len(changes) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "repaired the state of project %s on stack %s (the previous state is kept in its history folder):", p, stack)
		for _, ch := range changes {
			b.WriteString("\n  - " + ch)
		}
	}
	if b.Len() == 0 {
		return fmt.Sprintf("the state of %s is consistent; nothing to repair", what), nil
	}
	return b.String(), nil
}
