// Package secrets makes the local environment's generated secrets: the salt
// under which the application keeps its admin password digest, and a session
// key for the application.
package secrets

import (
	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugins/random"
	"github.com/runnerhq/runner/projects/local/localenv"
)

// Program declares the secrets. Outputs: passwordSalt, sessionKey (secret).
func Program(rt localenv.Runtime) engine.Program {
	return func(ctx *engine.Context) error {
		salt := ctx.Resource(random.IDType, "password-salt", engine.Inputs{"byteLength": 16})
		session := ctx.Resource(random.PasswordType, "session-key", engine.Inputs{
			"length":  32,
			"special": false,
		})
		ctx.Export("passwordSalt", salt.Output("hex"))
		ctx.Export("sessionKey", session.Output("result"))
		return nil
	}
}
