package pluginhost

// A fake resource provider plugin: the test binary re-executed with
// PLUGINHOST_FAKE set (TestMain), so that processes, pipes, signals and
// gRPC are real. It records what it receives in $FAKE_DIR/<pid>.jsonl.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// record is one thing the fake saw.
type record struct {
	Pid    int            `json:"pid"`
	Method string         `json:"method"`
	Data   map[string]any `json:"data,omitempty"`
}

type fake struct {
	pulumirpc.UnimplementedResourceProviderServer
	mode       string
	engine     pulumirpc.EngineClient
	mu         sync.Mutex
	out        *os.File
	configured atomic.Bool
}

func (f *fake) record(method string, data map[string]any) {
	b, _ := json.Marshal(record{Pid: os.Getpid(), Method: method, Data: data})
	f.mu.Lock()
	defer f.mu.Unlock()
	f.out.Write(append(b, '\n'))
}

// runFake is the fake plugin's main.
func runFake(mode string) int {
	switch mode {
	case "garbage":
		fmt.Println("hello, I am not a port")
		time.Sleep(time.Minute)
		return 0
	case "noport":
		fmt.Fprintln(os.Stderr, "error: cannot read the config\nfatal: giving up")
		return 3
	case "silent":
		time.Sleep(time.Minute)
		return 0
	}
	out, err := os.OpenFile(filepath.Join(os.Getenv("FAKE_DIR"), fmt.Sprintf("%d.jsonl", os.Getpid())), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	f := &fake{mode: mode, out: out}
	wd, _ := os.Getwd()
	f.record("start", map[string]any{"args": os.Args[1:], "cwd": wd,
		"config": os.Getenv("PULUMI_CONFIG"), "project": os.Getenv("PULUMI_PROJECT")})
	if len(os.Args) == 2 {
		cc, err := grpc.NewClient(os.Args[1], grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err == nil {
			f.engine = pulumirpc.NewEngineClient(cc)
		}
	}
	if mode == "child" {
		child := exec.Command("sleep", "300")
		if err := child.Start(); err == nil {
			f.record("child", map[string]any{"pid": child.Process.Pid})
		}
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1
	}
	srv := grpc.NewServer()
	pulumirpc.RegisterResourceProviderServer(srv, f)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT)
	go func() {
		for range sigs {
			f.record("SIGINT", nil)
			if mode != "ignoreint" {
				srv.Stop()
			}
		}
	}()
	fmt.Printf("%d\n", lis.Addr().(*net.TCPAddr).Port)
	fmt.Fprintln(os.Stderr, "fake plugin serving")
	_ = srv.Serve(lis)
	return 0
}

func (f *fake) Handshake(_ context.Context, req *pulumirpc.ProviderHandshakeRequest) (*pulumirpc.ProviderHandshakeResponse, error) {
	if f.mode == "legacy" {
		return nil, status.Error(codes.Unimplemented, "no handshake")
	}
	f.record("Handshake", map[string]any{"engine": req.GetEngineAddress(), "root": req.GetRootDirectory(),
		"program": req.GetProgramDirectory(), "urn": req.GetConfigureWithUrn(), "views": req.GetSupportsViews()})
	return &pulumirpc.ProviderHandshakeResponse{AcceptSecrets: os.Getenv("FAKE_SECRETS") != "", AcceptResources: true}, nil
}

func (f *fake) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: "1.0.0"}, nil
}

func (f *fake) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	f.record("CheckConfig", map[string]any{"news": req.GetNews().AsMap()})
	if os.Getenv("FAKE_NOCHECKCONFIG") != "" {
		return nil, status.Error(codes.Unknown, "Unimplemented: CheckConfig")
	}
	news := req.GetNews().AsMap()
	news["checked"] = true
	s, _ := structpb.NewStruct(news)
	return &pulumirpc.CheckResponse{Inputs: s}, nil
}

func (f *fake) Configure(_ context.Context, req *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	f.record("Configure", map[string]any{"args": req.GetArgs().AsMap(), "variables": req.GetVariables(),
		"id": req.GetId(), "urn": req.GetUrn(), "type": req.GetType(), "secrets": req.GetAcceptSecrets()})
	if _, ok := req.GetArgs().GetFields()["missing"]; ok {
		st, _ := status.New(codes.InvalidArgument, "missing config").WithDetails(&pulumirpc.ConfigureErrorMissingKeys{
			MissingKeys: []*pulumirpc.ConfigureErrorMissingKeys_MissingKey{{Name: "region", Description: "the region"}}})
		return nil, st.Err()
	}
	time.Sleep(100 * time.Millisecond) // calls arriving now must wait
	f.configured.Store(true)
	return &pulumirpc.ConfigureResponse{AcceptSecrets: true, SupportsPreview: true}, nil
}

func (f *fake) Check(ctx context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	if !f.configured.Load() {
		return nil, status.Error(codes.FailedPrecondition, "Check before Configure")
	}
	news := req.GetNews().AsMap()
	f.record("Check", map[string]any{"news": news, "olds": req.GetOlds() != nil, "seed": len(req.GetRandomSeed())})
	if msg, ok := news["log"].(string); ok && f.engine != nil {
		if _, err := f.engine.Log(ctx, &pulumirpc.LogRequest{Severity: pulumirpc.LogSeverity_WARNING, Message: msg, Urn: req.GetUrn()}); err != nil {
			return nil, err
		}
	}
	if bad, ok := news["fail"].(string); ok {
		return &pulumirpc.CheckResponse{Failures: []*pulumirpc.CheckFailure{{Property: bad, Reason: "is not allowed"}}}, nil
	}
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

func (f *fake) Diff(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME, HasDetailedDiff: true,
		DetailedDiff:        map[string]*pulumirpc.PropertyDiff{"tags.Name": {Kind: pulumirpc.PropertyDiff_UPDATE_REPLACE}},
		DeleteBeforeReplace: true}, nil
}

func (f *fake) Create(ctx context.Context, req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	if !f.configured.Load() {
		return nil, status.Error(codes.FailedPrecondition, "Create before Configure")
	}
	props := req.GetProperties().AsMap()
	f.record("Create", map[string]any{"props": props, "preview": req.GetPreview(), "timeout": req.GetTimeout()})
	if _, ok := props["crash"]; ok {
		fmt.Fprintln(os.Stderr, "panic: the fake crashed during create")
		os.Exit(2)
	}
	if _, ok := props["initfail"]; ok {
		out, _ := structpb.NewStruct(map[string]any{"half": "made"})
		st, _ := status.New(codes.Unknown, "init failed").WithDetails(&pulumirpc.ErrorResourceInitFailed{
			Id: "id-half", Properties: out, Reasons: []string{"not ready"}})
		return nil, st.Err()
	}
	if c, ok := props["code"].(float64); ok {
		return nil, status.Error(codes.Code(c), "the fake failed as asked")
	}
	if _, ok := props["hang"]; ok {
		<-ctx.Done()
		time.Sleep(200 * time.Millisecond) // it finishes after the caller gave up
		return nil, ctx.Err()
	}
	props["out"] = "made"
	if _, ok := props["unknownout"]; ok {
		props["out"] = "04da6b54-80e4-46f7-96ec-b56ff0331ba9" // not allowed outside a preview
	}
	if _, ok := props["noid"]; ok {
		s, _ := structpb.NewStruct(props)
		return &pulumirpc.CreateResponse{Properties: s}, nil
	}
	if req.GetPreview() {
		props["out"] = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
	}
	s, _ := structpb.NewStruct(props)
	return &pulumirpc.CreateResponse{Id: "id-1", Properties: s}, nil
}

func (f *fake) Read(_ context.Context, req *pulumirpc.ReadRequest) (*pulumirpc.ReadResponse, error) {
	f.record("Read", map[string]any{"hasProps": req.GetProperties() != nil, "hasInputs": req.GetInputs() != nil})
	return &pulumirpc.ReadResponse{Id: req.GetId(), Properties: req.GetProperties()}, nil
}

func (f *fake) Delete(_ context.Context, req *pulumirpc.DeleteRequest) (*emptypb.Empty, error) {
	f.record("Delete", map[string]any{"id": req.GetId(), "oldInputs": req.GetOldInputs() != nil})
	return &emptypb.Empty{}, nil
}

func (f *fake) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	f.record("Cancel", nil)
	return &emptypb.Empty{}, nil
}

// records reads everything the fakes wrote in dir.
func records(dir string) []record {
	var out []record
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, file := range files {
		b, _ := os.ReadFile(file)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r record
			if json.Unmarshal([]byte(line), &r) == nil {
				out = append(out, r)
			}
		}
	}
	return out
}
