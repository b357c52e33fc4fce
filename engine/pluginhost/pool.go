package pluginhost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/runnerhq/runner/engine/plugincache"
	"github.com/runnerhq/runner/engine/resource"
)

// PoolOptions configure a Pool.
type PoolOptions struct {
	// Workspace is the plugins' working directory (relative asset paths
	// resolve against it).
	Workspace string
	// Environ is the plugins' environment (nil: the runner's own);
	// PULUMI_CONFIG and PULUMI_PROJECT are added.
	Environ []string
	// Locate returns the path of the plugin executable of a package and
	// version (nil: plugincache.Find, reading PATH and PULUMI_HOME from
	// Environ; a missing plugin is a *plugincache.NotInstalledError).
	Locate func(pkg, version string) (string, error)
	// Log receives what plugins log through the engine callback service,
	// and the pool's own warnings (nil: dropped).
	Log func(LogEntry)
	// Debug receives the plugins' stdout and stderr lines (nil: dropped).
	Debug func(string)
	// Secrets are more plaintexts that plugins know and must never be
	// shown, such as the passphrase they inherit in their environment. The
	// pool masks them, with the secrets it gives plugins in plain (their
	// provider config, the secret inputs of a plugin that does not accept
	// secrets), in every line a plugin logs or prints before it reaches
	// Log, Debug or an error message.
	Secrets []string
	// ConfigureHelp is, by package, what to tell a user whose plugin
	// refused its configuration (the Help of its *resource.ConfigureError):
	// which credentials or config to set.
	ConfigureHelp map[string]string
	// Identity is, by package, how a resource's ID follows from its inputs
	// (resource.IdentityFunc), for the packages that declare it: Read of an
	// interrupted create (no ID) reads by that ID instead of asking the
	// plugin to look the resource up by URN, which most plugins cannot.
	Identity map[string]resource.IdentityFunc
	// Lookup is, by package, how a resource whose ID its cloud assigns is
	// found by the name the user gave it, through a function of its plugin
	// (resource.LookupFunc): Read of an interrupted create that Identity
	// does not tell calls it.
	Lookup map[string]resource.LookupFunc
	// OwnEnv maps environment variables of Environ (API tokens) to the one
	// package whose plugin receives them: every other plugin starts
	// without them.
	OwnEnv map[string]string
}

// Pool runs the plugin processes of a run: one per package, version and
// configuration, started when first needed and shared by every handle of
// the pool, until Close. A plugin that dies fails the calls in flight with
// its exit and last output lines; a later Configure or call of the same
// configuration starts a new process (at most maxRestarts times a run).
type Pool struct {
	opts   PoolOptions
	ctx    context.Context // ends at Close: aborts starts and Configures in flight
	cancel context.CancelFunc

	engMu sync.Mutex // guards eng; taken before mu, never after
	eng   *engineServer

	mu       sync.Mutex
	closed   bool
	plugins  []*plugin
	restarts map[string]int               // by configuration key
	failed   map[string]error             // start failures by package and version: never retried
	redact   redactor                     // the secrets plugins were given in plain
	params   map[string]*Parameterization // by package and version: the parameterized packages
}

// NewPool returns a pool that has started nothing yet.
func NewPool(opts PoolOptions) *Pool {
	ctx, cancel := context.WithCancel(context.Background())
	pool := &Pool{opts: opts, ctx: ctx, cancel: cancel}
	known := make(resource.PropertyMap, len(opts.Secrets))
	for i, s := range opts.Secrets {
		known[strconv.Itoa(i)] = resource.Secret{Element: s}
	}
	pool.redact.addSecrets(known)
	return pool
}

// retiredKey marks a plugin that died and was replaced: no configuration
// matches it.
const retiredKey = "\x00retired"

// errClosed is returned by calls on a closed pool.
var errClosed = errors.New("the plugin pool is closed: the run has ended")

// Plugin returns the plugin of a package at a version ("": any) as a lazy
// handle: no process starts until its first call.
func (pool *Pool) Plugin(pkg, version string) resource.Configurable {
	return &handle{pool: pool, pkg: pkg, version: version}
}

// log hands a plugin's message to the pool's Log, secrets masked.
func (pool *Pool) log(e LogEntry) {
	if pool.opts.Log != nil {
		e.Message = pool.redact.apply(e.Message)
		pool.opts.Log(e)
	}
}

// debug hands a --debug line about a plugin to the pool's Debug, secrets
// masked; nil without a Debug.
func (pool *Pool) debugFunc() func(string) {
	if pool.opts.Debug == nil {
		return nil
	}
	return func(line string) { pool.opts.Debug(pool.redact.apply(line)) }
}

// acquire returns the plugin of (pkg, version) serving the configuration
// key, claiming a spare or starting one if there is none. An empty key
// asks for any live plugin of (pkg, version). Locating the plugin (disk
// scans) and starting the callback server happen outside pool.mu.
func (pool *Pool) acquire(pkg, version, key string, urn resource.URN, inputs resource.PropertyMap) (*plugin, error) {
	project, config := urn.Project(), launchConfig(inputs)
	launchID := launchHash(config)
	pool.mu.Lock()
	p, found, err := pool.find(pkg, version, key, launchID)
	pool.mu.Unlock()
	if found || err != nil {
		return p, err
	}
	pool.mu.Lock()
	pz := pool.parameterizationOf(pkg, version)
	pool.mu.Unlock()
	base, baseVersion := pkg, version
	if pz != nil {
		base, baseVersion = pz.Base, pz.BaseVersion
	}
	path, err := pool.locate(base, baseVersion)
	if err != nil {
		return nil, err
	}
	addr, err := pool.engineAddr()
	if err != nil {
		return nil, err
	}
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if p, found, err := pool.find(pkg, version, key, launchID); found || err != nil {
		return p, err // another caller started one meanwhile
	}
	pool.redact.addSecrets(inputs)
	p = newPlugin(pool, pkg, version, key)
	p.launchID, p.param = launchID, pz
	pool.plugins = append(pool.plugins, p)
	go p.start(pool.ctx, launch{pkg: pkg, path: path, dir: pool.opts.Workspace, engineAddr: addr,
		env: pool.environ(pkg, project, config), debug: pool.debugFunc(), mask: pool.redact.apply})
	return p, nil
}

// find returns, pool.mu held, the plugin acquire can use without starting
// one (found), or the error that forbids starting one.
func (pool *Pool) find(pkg, version, key, launchID string) (p *plugin, found bool, err error) {
	if pool.closed {
		return nil, false, errClosed
	}
	if err := pool.failed[pkg+"\x00"+version]; err != nil {
		return nil, false, err // the plugins below failed no start (one that just did gives its error to its waiters)
	}
	var spare *plugin
	for _, p := range pool.plugins {
		switch {
		case p.pkg != pkg || p.version != version:
		case key != "" && p.key == key:
			if !p.exited() || pool.restarts[key] >= maxRestarts {
				return p, true, nil
			}
			p.key = retiredKey // dead: a new process serves the configuration
			if pool.restarts == nil {
				pool.restarts = map[string]int{}
			}
			pool.restarts[key]++
		case key == "" && !p.exited():
			return p, true, nil
		case p.key == "" && spare == nil && p.launchID == launchID && !p.exited():
			spare = p
		}
	}
	if spare != nil {
		spare.key = key
		return spare, true, nil
	}
	return nil, false, nil
}

// engineAddr returns the address of the callback server, starting it on
// first use (not after Close).
func (pool *Pool) engineAddr() (string, error) {
	pool.engMu.Lock()
	defer pool.engMu.Unlock()
	if pool.eng == nil {
		pool.mu.Lock()
		closed := pool.closed
		pool.mu.Unlock()
		if closed {
			return "", errClosed
		}
		eng, err := startEngine(pool.log)
		if err != nil {
			return "", err
		}
		pool.eng = eng
	}
	return pool.eng.addr, nil
}

// startFailed remembers that a plugin failed to start: later calls for its
// package and version fail at once with the same error instead of waiting
// for another start that would fail alike.
func (pool *Pool) startFailed(pkg, version string, err error) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.failed == nil {
		pool.failed = map[string]error{}
	}
	pool.failed[pkg+"\x00"+version] = err
}

// launchHash identifies the configuration a plugin was started with
// (PULUMI_CONFIG), hashed so that no configuration value is kept. The
// project (PULUMI_PROJECT) is left out: a configured process serves every
// project of the run, so a spare started for one project's CheckConfig is
// claimed by another project's Configure of the same configuration instead
// of idling beside a second process.
func launchHash(config string) string {
	sum := sha256.Sum256([]byte(config))
	return hex.EncodeToString(sum[:])
}

func (pool *Pool) locate(pkg, version string) (string, error) {
	if pool.opts.Locate != nil {
		return pool.opts.Locate(pkg, version)
	}
	return plugincache.Find(pkg, version, pool.getenv)
}

// getenv reads the plugins' environment (PATH, PULUMI_HOME,
// PULUMI_IGNORE_AMBIENT_PLUGINS) to find them.
func (pool *Pool) getenv(key string) string {
	if pool.opts.Environ == nil {
		return os.Getenv(key)
	}
	v := ""
	for _, kv := range pool.opts.Environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val // the last one wins, as in exec
		}
	}
	return v
}

// environ is the environment of pkg's plugin: the pool's without the
// variables another package owns (OwnEnv), with PULUMI_CONFIG and
// PULUMI_PROJECT set.
func (pool *Pool) environ(pkg, project, config string) []string {
	base := pool.opts.Environ
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+2)
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if owner, owned := pool.opts.OwnEnv[name]; owned && owner != pkg {
			continue
		}
		if name != "PULUMI_CONFIG" && name != "PULUMI_PROJECT" {
			env = append(env, kv)
		}
	}
	return append(env, "PULUMI_CONFIG="+config, "PULUMI_PROJECT="+project)
}

// Cancel asks every running plugin to stop its work in flight (Pulumi's
// Cancel, in parallel, at most 30 s); plugins that do not implement it are
// left alone. The runner calls it on Ctrl-C, before Close.
func (pool *Pool) Cancel(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return pool.each(func(p *plugin) error { return p.cancel(ctx) })
}

// Close ends every plugin: Cancel (5 s), close its connection, SIGINT to
// its process group and SIGKILL 5 s later (at once when ctx is done). It
// waits for the processes, then stops the callback server. Later calls
// fail.
func (pool *Pool) Close(ctx context.Context) error {
	pool.mu.Lock()
	pool.closed = true
	pool.mu.Unlock()
	pool.cancel()
	err := pool.each(func(p *plugin) error { p.closeDown(ctx); return nil })
	pool.engMu.Lock()
	eng := pool.eng
	pool.eng = nil
	pool.engMu.Unlock()
	if eng != nil {
		eng.stop()
	}
	return err
}

// each runs fn on every plugin in parallel and joins the errors.
func (pool *Pool) each(fn func(*plugin) error) error {
	pool.mu.Lock()
	plugins := append([]*plugin(nil), pool.plugins...)
	pool.mu.Unlock()
	errs := make([]error, len(plugins))
	var wg sync.WaitGroup
	for i, p := range plugins {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = fn(p) }()
	}
	wg.Wait()
	return errors.Join(errs...)
}
