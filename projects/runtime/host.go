package runtime

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/runnerhq/runner/engine/plugincache"
	"github.com/runnerhq/runner/engine/pluginhost"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/internal/gctune"
	"github.com/runnerhq/runner/projects/pulumiproject"
)

// host runs a program through a pulumi-language-<runtime> host binary
// over Pulumi's LanguageRuntime protocol: one host per run, started with
// the engine's address as its argument, in the program's folder.
type host struct {
	p    *pulumiproject.Project
	prog pulumiproject.Program
	bin  string
	o    Options

	mu      sync.Mutex
	started map[string]*hostSlot // by engine address: RequiredPackages and Run share one host
	// startProc starts a host (start; a test's stand-in).
	startProc func(context.Context, source.RunRequest) (*hostProc, error)
}

func newHost(p *pulumiproject.Project, prog pulumiproject.Program, o Options) (*host, error) {
	bin, err := findHost(p.Runtime, o)
	if err != nil {
		return nil, &MissingError{Project: p.Name, Runtime: p.Runtime, What: err.Error(),
			Fix: fmt.Sprintf("put pulumi-language-%s on PATH or in the plugin cache (%s); for yaml, see README (Runtimes) for building it", p.Runtime, cacheDir(o))}
	}
	h := &host{p: p, prog: prog, bin: bin, o: o, started: map[string]*hostSlot{}}
	h.startProc = h.start
	return h, nil
}

func cacheDir(o Options) string {
	d, err := plugincache.Dir(o.getenv)
	if err != nil {
		return "$PULUMI_HOME/plugins"
	}
	return d
}

// findHost returns the host binary of runtime: on PATH, else the newest
// language-<runtime>-v<version> folder of the plugin cache.
func findHost(runtime string, o Options) (string, error) {
	name := "pulumi-language-" + runtime
	for _, dir := range filepath.SplitList(o.getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, nil
		}
	}
	cache := cacheDir(o)
	dirs, _ := filepath.Glob(filepath.Join(cache, "language-"+runtime+"-v*"))
	sort.Slice(dirs, func(i, j int) bool {
		c, err := plugincache.CompareVersions(strings.TrimPrefix(filepath.Base(dirs[i]), "language-"+runtime+"-v"),
			strings.TrimPrefix(filepath.Base(dirs[j]), "language-"+runtime+"-v"))
		return err == nil && c > 0
	})
	for _, d := range dirs {
		if p := filepath.Join(d, name); isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is neither on PATH nor in the plugin cache %s", name, cache)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// hostProc is one running host and the connection to it.
type hostProc struct {
	proc *pluginhost.Tied
	conn *grpc.ClientConn
	rt   pulumirpc.LanguageRuntimeClient
	out  *maskWriter
	errw *maskWriter
}

func (h *hostProc) stop() {
	if h.conn != nil {
		h.conn.Close()
	}
	if h.proc != nil {
		h.proc.Stop(5 * time.Second)
	}
	if h.out != nil {
		h.out.Flush()
		h.errw.Flush()
	}
}

// start starts the host for the engine at req.EngineAddress, reads its
// port and connects.
func (h *host) start(ctx context.Context, req source.RunRequest) (*hostProc, error) {
	mask := newMasker(req.Config, req.ConfigSecretKeys)
	cmd := exec.Command(h.bin, req.EngineAddress)
	cmd.Dir, cmd.Env = h.prog.Pwd, h.o.environ()
	if h.p.Runtime == "yaml" {
		// The YAML host (it runs no code of the user's) collects less
		// often, unless the user set GOGC or GOMEMLIMIT: its ~9 MB heap
		// for 1,000 resources was collected ~22 times a no-op preview,
		// ~4 with it. Programs and plugins runner starts keep Go's
		// defaults (plugins the host starts itself inherit it).
		cmd.Env = gctune.Env(cmd.Env, gctune.Limit())
	}
	outR, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	hp := &hostProc{out: mask.writer(orDiscard(req.Stdout)), errw: mask.writer(orDiscard(req.Stderr))}
	cmd.Stderr = hp.errw
	if hp.proc, err = pluginhost.StartTied(cmd); err != nil {
		return nil, fmt.Errorf("starting %s: %w", h.bin, err)
	}
	port, err := readPort(ctx, outR, hp.out)
	if err != nil {
		hp.stop()
		return nil, fmt.Errorf("the language host %s %w", h.bin, err)
	}
	hp.conn, err = grpc.NewClient("127.0.0.1:"+strconv.Itoa(port), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(400<<20), grpc.MaxCallSendMsgSize(400<<20)))
	if err != nil {
		hp.stop()
		return nil, err
	}
	hp.rt = pulumirpc.NewLanguageRuntimeClient(hp.conn)
	if _, err := hp.rt.GetPluginInfo(ctx, &emptypb.Empty{}, grpc.WaitForReady(true)); err != nil {
		hp.stop()
		return nil, fmt.Errorf("the language host %s does not answer: %w", h.bin, err)
	}
	return hp, nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// readPort reads the host's first stdout line as its port and copies the
// rest of its stdout to rest.
func readPort(ctx context.Context, r io.Reader, rest io.Writer) (int, error) {
	br := bufio.NewReader(r)
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := br.ReadString('\n')
		ch <- result{line, err}
		_, _ = io.Copy(rest, br)
	}()
	var res result
	select {
	case res = <-ch:
	case <-time.After(60 * time.Second):
		return 0, errors.New("printed no port within 60 s")
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	port, err := strconv.Atoi(strings.TrimSpace(res.line))
	if err != nil || port < 1 || port > 65535 {
		return 0, fmt.Errorf("printed %q where its port was expected", strings.TrimSpace(res.line))
	}
	return port, nil
}

// RequiredPackages asks the host which plugins the program needs
// (GetRequiredPackages). The host stays up for the Run that follows (or
// runs meanwhile).
// A YAML program's answer is kept (packageCache): when its files and
// the host are unchanged, the host is only started, not asked.
func (h *host) RequiredPackages(ctx context.Context, req source.RunRequest) ([]source.Package, error) {
	cache := h.packageCache()
	var key string
	if cache.file != "" {
		key, _ = h.packageKey()
		if pkgs, ok := cache.get(key); ok {
			h.startEarly(ctx, req)
			return pkgs, nil
		}
	}
	hp, done, err := h.acquire(ctx, req)
	if err != nil {
		return nil, err
	}
	defer done()
	resp, err := hp.rt.GetRequiredPackages(ctx, &pulumirpc.GetRequiredPackagesRequest{Info: h.info()})
	if status.Code(err) == codes.Unimplemented {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("project %s: listing the plugins its program needs: %w", h.p.Name, err)
	}
	var out []source.Package
	for _, d := range resp.GetPackages() {
		if d.GetKind() != "" && d.GetKind() != "resource" {
			continue
		}
		pkg := source.Package{Name: d.GetName(), Version: strings.TrimPrefix(d.GetVersion(), "v"), Server: d.GetServer()}
		if pr := d.GetParameterization(); pr != nil { // a parameterized package: Name is its base plugin
			pkg.Param = &resource.Parameterization{Base: pkg.Name, BaseVersion: pkg.Version,
				Name: pr.GetName(), Version: strings.TrimPrefix(pr.GetVersion(), "v"), Value: pr.GetValue()}
			pkg.Name, pkg.Version = pkg.Param.Name, pkg.Param.Version
		}
		out = append(out, pkg)
	}
	if again, err := h.packageKey(); err == nil && again == key {
		cache.put(key, out) // unless the program changed meanwhile
	}
	return out, nil
}

// Release stops the host RequiredPackages started for this engine when no
// Run follows.
func (h *host) Release(req source.RunRequest) {
	h.mu.Lock()
	s := h.started[req.EngineAddress]
	h.mu.Unlock()
	if s != nil {
		h.release(req.EngineAddress, s, true)
	}
}

func (h *host) info() *pulumirpc.ProgramInfo {
	var opts *structpb.Struct
	if len(h.p.Options) > 0 {
		opts, _ = structpb.NewStruct(h.p.Options)
	}
	return &pulumirpc.ProgramInfo{RootDirectory: h.p.Dir, ProgramDirectory: h.prog.Pwd, EntryPoint: h.prog.EntryPoint, Options: opts}
}

// Declarative is true for Pulumi YAML: its programs run no code of the
// user's, only calls to the engine, so they may start before the engine
// is ready to serve them (source.Declarative).
func (h *host) Declarative() bool { return h.p.Runtime == "yaml" }

// DialsLocal is true for Pulumi YAML: its host dials the engine with
// grpc-go, which takes a Unix socket's address (source.LocalDialer).
func (h *host) DialsLocal() bool { return h.p.Runtime == "yaml" }

// Run runs the program once through the host.
func (h *host) Run(ctx context.Context, req source.RunRequest) error {
	hp, done, err := h.acquire(ctx, req)
	if err != nil {
		return err
	}
	defer func() {
		done()
		h.mu.Lock()
		s := h.started[req.EngineAddress]
		h.mu.Unlock()
		if s == nil {
			return
		}
		if req.StopLater != nil {
			req.StopLater(func() { h.release(req.EngineAddress, s, true) })
			return
		}
		h.release(req.EngineAddress, s, true)
	}()
	resp, err := hp.rt.Run(ctx, &pulumirpc.RunRequest{
		Project: req.Project, Stack: req.Stack, Organization: req.Organization, Pwd: h.prog.Pwd,
		Program: h.prog.EntryPoint, Config: req.Config, ConfigSecretKeys: req.ConfigSecretKeys,
		DryRun: req.DryRun, Parallel: req.Parallel, MonitorAddress: req.MonitorAddress,
		LoaderTarget: loaderTarget(req), Info: h.info(),
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the language host failed: %w", err)
	}
	if resp.GetBail() {
		return &ProgramError{Reported: true}
	}
	if msg := resp.GetError(); msg != "" {
		return &ProgramError{Msg: newMasker(req.Config, req.ConfigSecretKeys).mask(msg)}
	}
	return nil
}

// loaderTarget is the schema loader's address: the YAML host refuses an
// empty one, so the engine's address stands in when none is served.
func loaderTarget(req source.RunRequest) string {
	if req.LoaderAddress != "" {
		return req.LoaderAddress
	}
	return req.EngineAddress
}

// ProgramError is a program that failed: its own message, or Reported
// when it already reported its error through the engine's log.
type ProgramError struct {
	Msg      string
	Reported bool
}

func (e *ProgramError) Error() string {
	if e.Reported {
		return "the program failed (its error is in the log above)"
	}
	return "the program failed: " + e.Msg
}
