package runner

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// restoreText is the RESTORE.txt of a stack moved to trash: a shell script
// whose commands put the stack back (config, each project's state, tags,
// the selection), run as `sh RESTORE.txt`.
func (r *removal) restoreText(s *Stacks, trash string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Stack %s was removed by `runner stack rm` on %s.\n", r.stack, time.Now().UTC().Format(time.RFC3339))
	b.WriteString("# This folder holds its config file, each project's state (as `runner stack export`\n")
	b.WriteString("# gives it), its tags and its history (history.json, kept for reading).\n")
	b.WriteString("# To put the stack back, run this file: sh " + shellQuote(filepath.Join(trash, "RESTORE.txt")) + "\n")
	b.WriteString("# (`runner` must be on PATH; the passphrase is the stack's, as before).\n\nset -e\n")
	runner := "runner --root " + shellQuote(s.Workspace)
	if s.Opts.EnvFile != "" {
		runner += " --env-file " + shellQuote(EnvFilePath(s.Opts, s.Workspace))
	}
	if url := s.Opts.Backend; url != "" {
		if !strings.Contains(url, "://") || strings.HasPrefix(url, "file://") {
			runner += " --backend " + shellQuote(absFileURL(url))
		} else {
			b.WriteString("# The state goes back to the backend it came from: set --backend or RUNNER_BACKEND_URL as when it was removed.\n")
		}
	}
	if r.cfgPath != "" && !r.keepCfg {
		cfg := shellQuote(r.cfgPath)
		fmt.Fprintf(&b, "test ! -e %s || { echo %s >&2; exit 1; }\n", cfg, shellQuote(r.cfgPath+" exists: move it away first, then run this again"))
		fmt.Fprintf(&b, "mkdir -p %s\n", shellQuote(filepath.Dir(r.cfgPath)))
		fmt.Fprintf(&b, "cp %s %s\n", shellQuote(filepath.Join(trash, r.configName())), cfg)
	}
	for _, p := range r.projects {
		if _, ok := r.exports[p]; !ok {
			continue
		}
		fmt.Fprintf(&b, "%s --stack %s stack import --project %s --file %s\n", runner, r.stack, p,
			shellQuote(filepath.Join(trash, "state", p+".json")))
	}
	keys := make([]string, 0, len(r.tags))
	for k := range r.tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s --stack %s stack tag set -- %s %s\n", runner, r.stack, shellQuote(k), shellQuote(r.tags[k]))
	}
	if r.selected {
		fmt.Fprintf(&b, "%s stack select %s\n", runner, r.stack)
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// absFileURL returns the folder backend url with its folder made absolute
// (a relative one is relative to the folder runner ran in, which
// RESTORE.txt may be run from another).
func absFileURL(url string) string {
	dir := strings.TrimPrefix(url, "file://")
	abs, err := filepath.Abs(dir)
	if err != nil || dir == abs {
		return url
	}
	if dir == url {
		return abs
	}
	return "file://" + abs
}
