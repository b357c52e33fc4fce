package providertest_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
)

const (
	providerURN = "urn:pulumi:dev::proj::pulumi:providers:testprov::default"
	sigKey      = providertest.SigKey
)

// thingURN returns the URN of a Thing named name.
func thingURN(name string) string { return "urn:pulumi:dev::proj::testprov:index:Thing::" + name }

// engine is a Pulumi engine's Log service that records the messages.
type engine struct {
	pulumirpc.UnimplementedEngineServer
	mu   sync.Mutex
	logs []string
}

func (e *engine) Log(_ context.Context, req *pulumirpc.LogRequest) (*emptypb.Empty, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.logs = append(e.logs, req.Severity.String()+" "+req.Message)
	return &emptypb.Empty{}, nil
}

// messages returns the logged "SEVERITY message" lines.
func (e *engine) messages() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.logs...)
}

// serveEngine serves an engine on a local port and returns it with its address.
func serveEngine(t *testing.T) (*engine, string) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &engine{}
	srv := grpc.NewServer()
	pulumirpc.RegisterEngineServer(srv, e)
	go srv.Serve(lis) //nolint:errcheck // ends with Stop
	t.Cleanup(srv.Stop)
	return e, lis.Addr().String()
}

// syncBuffer is a strings.Builder safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// running is a started plugin process with its gRPC client.
type running struct {
	cmd    *exec.Cmd
	client pulumirpc.ResourceProviderClient
	stderr *syncBuffer
	exited chan struct{} // closed when the process has exited
	err    error         // its exit status, once exited is closed
}

// start runs the plugin with the extra environment env and the engine
// address addr, reads its port and dials it.
func start(t *testing.T, addr string, env ...string) *running {
	t.Helper()
	cmd := exec.Command(providertest.Binary(t), addr)
	cmd.Env = append(os.Environ(), env...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &running{cmd: cmd, stderr: stderr, exited: make(chan struct{})}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	go func() {
		r.err = cmd.Wait()
		close(r.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-r.exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	port, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil || port <= 0 {
		t.Fatalf("first stdout line %q is not a port (read error %v); stderr: %s", line, err, stderr)
	}
	conn, err := grpc.NewClient("127.0.0.1:"+strconv.Itoa(port),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(400<<20), grpc.MaxCallSendMsgSize(400<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	r.client = pulumirpc.NewResourceProviderClient(conn)
	return r
}

// configured starts the plugin with the handshake done and the store
// configured, returning it with its store and engine.
func configured(t *testing.T, env ...string) (*running, providertest.Store, *engine) {
	t.Helper()
	e, addr := serveEngine(t)
	r := start(t, addr, env...)
	ctx := context.Background()
	if _, err := r.client.Handshake(ctx, &pulumirpc.ProviderHandshakeRequest{EngineAddress: addr}); err != nil {
		t.Fatalf("Handshake: %v", err)
	}
	store := providertest.Store(t.TempDir())
	if _, err := r.client.Configure(ctx, &pulumirpc.ConfigureRequest{
		Args: props(t, map[string]any{"store": string(store)}), AcceptSecrets: true, AcceptResources: true,
	}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return r, store, e
}

// props returns m as a Struct.
func props(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// create checks and creates a resource of typ named name with inputs m,
// returning its id and outputs.
func create(t *testing.T, c pulumirpc.ResourceProviderClient, typ, name string, m map[string]any) (string, map[string]any) {
	t.Helper()
	urn := "urn:pulumi:dev::proj::" + typ + "::" + name
	ctx := context.Background()
	checked, err := c.Check(ctx, &pulumirpc.CheckRequest{Urn: urn, News: props(t, m), RandomSeed: []byte("seed")})
	if err != nil || len(checked.Failures) > 0 {
		t.Fatalf("Check: %v %v", err, checked.GetFailures())
	}
	resp, err := c.Create(ctx, &pulumirpc.CreateRequest{Urn: urn, Properties: checked.Inputs})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return resp.Id, resp.Properties.AsMap()
}

func TestBinaryIsCached(t *testing.T) {
	a := providertest.Binary(t)
	b := providertest.Binary(t)
	if a != b {
		t.Errorf("Binary returned %s then %s", a, b)
	}
	fi, err := os.Stat(a)
	if err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("Binary %s is not an executable: %v", a, err)
	}
	if !strings.HasSuffix(a, "/"+providertest.BinaryName) || providertest.Dir(t)+"/"+providertest.BinaryName != a {
		t.Errorf("Binary %s, Dir %s", a, providertest.Dir(t))
	}
}

func TestStopsOnSIGINT(t *testing.T) {
	r := start(t, "")
	if _, err := r.client.GetPluginInfo(context.Background(), &emptypb.Empty{}); err != nil {
		t.Fatalf("GetPluginInfo: %v", err)
	}
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.exited:
		if r.err != nil {
			t.Errorf("exit after SIGINT: %v (stderr %s)", r.err, r.stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the plugin did not stop within 10s of SIGINT")
	}
}

func TestBadStart(t *testing.T) {
	tests := []struct {
		env       string
		wantLine  string // first stdout line; "" = none
		wantCode  int    // exit code when it exits by itself; -1 = keeps running
		wantError string // in stderr
	}{
		{"noport", "", 1, "failing to start on purpose"},
		{"garbage", "hello world", -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			cmd := exec.Command(providertest.Binary(t), "127.0.0.1:1")
			cmd.Env = append(os.Environ(), providertest.EnvBadStart+"="+tt.env)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			if strings.TrimSpace(line) != tt.wantLine {
				t.Errorf("first line %q, want %q", line, tt.wantLine)
			}
			if tt.wantCode < 0 {
				_ = cmd.Process.Signal(syscall.SIGINT)
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if tt.wantCode >= 0 && (!errors.As(err, &exit) || exit.ExitCode() != tt.wantCode) {
				t.Errorf("exit %v, want code %d", err, tt.wantCode)
			}
			if !strings.Contains(stderr.String(), tt.wantError) {
				t.Errorf("stderr %q, want %q in it", stderr.String(), tt.wantError)
			}
		})
	}
}

func TestStartDelay(t *testing.T) {
	begin := time.Now()
	start(t, "", providertest.EnvStartDelay+"=700ms")
	if d := time.Since(begin); d < 700*time.Millisecond {
		t.Errorf("the port came after %v, want at least 700ms", d)
	}
}
