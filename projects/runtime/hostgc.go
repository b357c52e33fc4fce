package runtime

import "github.com/runnerhq/runner/internal/gctune"

// hostGCEnv returns env with a garbage collector setting for the YAML
// host added (gctune: GOGC=400 with a GOMEMLIMIT ceiling): its ~9 MB heap
// for 1,000 resources was collected ~22 times a no-op preview with Go's
// default, ~4 times with it. A user's own GOGC or GOMEMLIMIT wins: with
// either set, env is unchanged. Only the YAML host gets it (it runs no
// code of the user's); Node.js and Go programs and provider plugins that
// runner starts keep Go's defaults (plugins the host starts itself, to
// read schemas, inherit it).
func hostGCEnv(env []string, limit int64) []string {
	return gctune.Env(env, limit)
}
