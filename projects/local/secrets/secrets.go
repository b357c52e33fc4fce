// Package secrets makes the local environment's generated secrets: the salt
// under which the application keeps its admin password digest, and a session
// key for the application.
package secrets

import (
	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/projects/local/localenv"
)

// Program declares the secrets. Outputs: passwordSalt, sessionKey (secret).
func Program(rt localenv.Runtime) engine.Program {
	return func(ctx *engine.Context) error {
		salt := ctx.Resource(localenv.RandomID, "password-salt", engine.Inputs{"byteLength": 16})
		session := ctx.Resource(localenv.RandomPassword, "session-key", engine.Inputs{
			"length":  32,
			"special": false,
		})
		ctx.Export("passwordSalt", salt.Output("hex"))
		ctx.Export("sessionKey", session.Output("result"))
		return nil
	}
}
