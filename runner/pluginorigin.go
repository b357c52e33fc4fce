package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/plugincache"
	"github.com/runnerhq/runner/runner/event"
)

// envFileOrigin says where the environment file env put the plugin binary
// at path, when runner's own PATH and plugin cache (those of its process
// environment) are not where it was found: a folder the file puts on PATH,
// or the plugin cache its PULUMI_HOME or HOME chooses. It is "" otherwise.
// A cloned workspace's environment file can choose the binaries even a
// read-only preview runs, so such a plugin is named.
func envFileOrigin(path string, env *config.EnvFile) string {
	if env == nil || path == "" {
		return ""
	}
	dir := filepath.Dir(path)
	if p, ok := env.Values["PATH"]; ok && inPathList(dir, p) && !inPathList(dir, os.Getenv("PATH")) {
		return fmt.Sprintf("the folder %s, which the environment file %s puts on PATH", dir, env.Path)
	}
	cache, err := plugincache.Dir(envGetter(env))
	own, ownErr := plugincache.Dir(os.Getenv)
	if err != nil || ownErr == nil && cache == own || !within(path, cache) {
		return ""
	}
	key := "HOME"
	if _, ok := env.Values["PULUMI_HOME"]; ok {
		key = "PULUMI_HOME"
	}
	return fmt.Sprintf("the plugin cache %s, which %s in the environment file %s chooses", cache, key, env.Path)
}

// inPathList reports whether dir is one of the folders of the PATH list.
func inPathList(dir, list string) bool {
	for _, d := range filepath.SplitList(list) {
		if d != "" && filepath.Clean(d) == filepath.Clean(dir) {
			return true
		}
	}
	return false
}

// within reports whether path is inside dir.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}

// originNotes emits, once per plugin binary, a warning naming a plugin
// the environment file chose (envFileOrigin).
type originNotes struct {
	env  *config.EnvFile
	sink event.Sink
	seen sync.Map
}

// note warns about the plugin pkg found at path, if the environment file
// chose it.
func (n *originNotes) note(pkg, version, path string) {
	origin := envFileOrigin(path, n.env)
	if origin == "" {
		return
	}
	if _, dup := n.seen.LoadOrStore(path, true); dup {
		return
	}
	what := strings.TrimSpace(pkg + " " + version)
	n.sink.Emit(event.Event{Type: event.Warning, Time: time.Now(),
		Message: fmt.Sprintf("plugin %s runs %s, found in %s, not on runner's own PATH or in its plugin cache", what, path, origin)})
}
