package runner

import (
	"os"
	"sort"
	"strings"
)

// Environ returns the environment runner starts hooks, plugins and
// services with: its own process environment with the environment file's
// values over it. runner's own environment is never changed.
func (s *Session) Environ() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && !backendOnly[k] {
			env[k] = v
		}
	}
	if s.Env != nil {
		for k, v := range s.Env.Values {
			env[k] = v
		}
	}
	delete(env, "RUNNER_BACKEND_URL")
	return env
}

// backendOnly are the variables of runner's environment that are for its
// backend alone (the backend URL, the PostgreSQL password and password
// file): plugins, hooks and programs never get them. An environment
// file's value is given as written (the user put it there for them),
// except the backend URL.
var backendOnly = map[string]bool{"RUNNER_BACKEND_URL": true, "PGPASSWORD": true, "PGPASSFILE": true}

// getenv returns key's value in the session's environment (see Environ).
func (s *Session) getenv(key string) string {
	if s.Env != nil {
		if v, ok := s.Env.Values[key]; ok {
			return v
		}
	}
	return os.Getenv(key)
}

// environList returns env as KEY=VALUE lines sorted by key, as a started
// process receives it.
func environList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
