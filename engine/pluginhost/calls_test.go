package pluginhost

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"google.golang.org/grpc/codes"
)

var thing = resource.URN("urn:pulumi:dev::web::fake:index:Thing::a")

func TestResourceCalls(t *testing.T) {
	e := newEnv(t, "modern", "FAKE_SECRETS=1")
	p := e.configure(t, resource.PropertyMap{})
	ctx := context.Background()

	pre, err := p.Create(ctx, resource.CreateRequest{URN: thing, Inputs: resource.PropertyMap{"a": resource.Computed{}, "b": "x"}, Preview: true})
	if err != nil || pre.ID != "id-1" || pre.Outputs["out"] != (resource.Computed{}) {
		t.Fatalf("preview Create = %+v, %v", pre, err)
	}
	if c := e.calls("Create")[0].Data; c["preview"] != true || c["props"].(map[string]any)["a"] != resource.UnknownStringValue {
		t.Errorf("preview Create sent %v: unknowns must be kept", c)
	}

	ins := resource.PropertyMap{"b": "x", "pw": resource.Secret{Element: "hunter2"}}
	got, err := p.Create(ctx, resource.CreateRequest{URN: thing, Inputs: ins, Timeout: 90 * time.Second})
	if err != nil || got.ID != "id-1" || got.Outputs["out"] != "made" || got.Outputs["pw"] != (resource.Secret{Element: "hunter2"}) {
		t.Fatalf("Create = %+v, %v", got, err)
	}
	if c := e.calls("Create")[1].Data; c["timeout"] != 90.0 {
		t.Errorf("Create sent timeout %v, want 90", c["timeout"])
	}

	d, err := p.Diff(ctx, resource.DiffRequest{URN: thing, ID: "id-1", OldInputs: ins, OldOutputs: got.Outputs, NewInputs: ins})
	want := resource.DiffResponse{Changed: []string{"tags"}, Replaces: []string{"tags"}, DeleteBeforeReplace: true,
		Detailed: map[string]resource.PropertyDiff{"tags.Name": {Kind: resource.DiffUpdateReplace}}}
	if err != nil || !reflect.DeepEqual(d, want) {
		t.Errorf("Diff = %+v, %v; want %+v", d, err, want)
	}

	r, err := p.Read(ctx, resource.ReadRequest{URN: thing, ID: "id-1"}) // an import
	if err != nil || r.ID != "id-1" {
		t.Errorf("Read = %+v, %v", r, err)
	}
	if c := e.calls("Read")[0].Data; c["hasProps"] != false || c["hasInputs"] != false {
		t.Errorf("an import's Read sent %v, want only the ID", c)
	}
	if err := p.Delete(ctx, resource.DeleteRequest{URN: thing, ID: "id-1", Inputs: ins, Outputs: got.Outputs}); err != nil {
		t.Fatal(err)
	}
	if c := e.calls("Delete")[0].Data; c["id"] != "id-1" || c["oldInputs"] != true {
		t.Errorf("Delete sent %v", c)
	}
}

func TestCallErrors(t *testing.T) {
	e := newEnv(t, "modern")
	p := e.configure(t, resource.PropertyMap{})
	ctx := context.Background()

	_, err := p.Check(ctx, resource.CheckRequest{URN: thing, News: resource.PropertyMap{"fail": "size"}})
	var cf *resource.CheckFailuresError
	if !errors.As(err, &cf) || cf.Failures[0] != (resource.CheckFailure{Property: "size", Reason: "is not allowed"}) {
		t.Errorf("Check failure = %v", err)
	}

	_, err = p.Create(ctx, resource.CreateRequest{URN: thing, Inputs: resource.PropertyMap{"initfail": true}})
	var ie *resource.InitError
	if !errors.As(err, &ie) || ie.ID != "id-half" || ie.Outputs["half"] != "made" || ie.Reasons[0] != "not ready" {
		t.Errorf("init failure = %#v", err)
	}

	_, err = e.pool.Plugin("fake", "1.0.0").Configure(ctx, resource.ConfigureRequest{URN: fakeURN, Inputs: resource.PropertyMap{"missing": true}})
	var mc *resource.MissingConfigError
	if !errors.As(err, &mc) || mc.Package != "fake" || mc.Keys[0] != (resource.MissingKey{Key: "region", Description: "the region"}) {
		t.Errorf("missing config = %v", err)
	}

	_, err = p.Create(ctx, resource.CreateRequest{URN: thing, Inputs: resource.PropertyMap{"crash": true}})
	for _, w := range []string{"the fake plugin (" + e.bin + ") exited with status 2 during create", "panic: the fake crashed during create"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("crash error %q does not contain %q", err, w)
		}
	}
}

// TestRestartAfterDeath: the plugin process of a configuration is shared by
// every project of a run, so its death must not fail the calls that start
// afterwards: they go to a new process, configured alike (never the call
// in flight, and at most maxRestarts times a run).
func TestRestartAfterDeath(t *testing.T) {
	e := newEnv(t, "modern")
	ctx := context.Background()
	early := e.configure(t, resource.PropertyMap{"region": "eu"}) // configured before the crash
	for i := range maxRestarts {
		_, err := early.Create(ctx, resource.CreateRequest{URN: thing, Inputs: resource.PropertyMap{"crash": true}})
		if err == nil || !strings.Contains(err.Error(), "exited with status 2 during create") {
			t.Fatalf("crash %d = %v", i, err)
		}
		if _, err := early.Check(ctx, resource.CheckRequest{URN: thing}); err != nil {
			t.Fatalf("a call after crash %d: %v", i, err)
		}
		if _, err := e.configure(t, resource.PropertyMap{"region": "eu"}).Check(ctx, resource.CheckRequest{URN: thing}); err != nil {
			t.Fatalf("a Configure after crash %d: %v", i, err)
		}
	}
	if n, c := len(e.calls("start")), len(e.calls("Configure")); n != maxRestarts+1 || c != n {
		t.Errorf("%d processes started and %d configured, want %d each", n, c, maxRestarts+1)
	}
	_, _ = early.Create(ctx, resource.CreateRequest{URN: thing, Inputs: resource.PropertyMap{"crash": true}})
	if _, err := early.Check(ctx, resource.CheckRequest{URN: thing}); err == nil || !strings.Contains(err.Error(), "exited with status 2 during check") {
		t.Errorf("a call after the restarts are used up = %v, want the death", err)
	}
}

func TestConfigCalls(t *testing.T) {
	ctx := context.Background()
	news := resource.PropertyMap{"region": "eu", "token": resource.Secret{Element: "s3"}, "__internal": map[string]any{"x": "y"}}
	t.Run("implemented", func(t *testing.T) {
		e := newEnv(t, "modern", "FAKE_SECRETS=1")
		got, err := e.pool.Plugin("fake", "").CheckConfig(ctx, resource.CheckRequest{URN: fakeURN, News: news})
		if err != nil {
			t.Fatal(err)
		}
		want := resource.PropertyMap{"region": "eu", "token": resource.Secret{Element: "s3"}, "checked": true, "__internal": map[string]any{"x": "y"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("CheckConfig = %v, want %v", got, want)
		}
		sent := e.calls("CheckConfig")[0].Data["news"].(map[string]any)
		if sent["token"] != "s3" || sent["__internal"] != nil {
			t.Errorf("CheckConfig sent %v: secrets go plain, __internal never", sent)
		}
		d, err := e.pool.Plugin("fake", "").DiffConfig(ctx, resource.DiffRequest{URN: fakeURN, NewInputs: news})
		if err != nil || !d.Unknown {
			t.Errorf("DiffConfig (unimplemented) = %+v, %v", d, err)
		}
	})
	t.Run("unimplemented", func(t *testing.T) {
		e := newEnv(t, "modern", "FAKE_NOCHECKCONFIG=1")
		got, err := e.pool.Plugin("fake", "").CheckConfig(ctx, resource.CheckRequest{URN: fakeURN, News: news})
		if err != nil || !reflect.DeepEqual(got, news) {
			t.Errorf("CheckConfig = %v, %v; want news unchanged", got, err)
		}
	})
}

func TestUnknownConfiguration(t *testing.T) {
	e := newEnv(t, "modern")
	ctx := context.Background()
	p := e.configure(t, resource.PropertyMap{"region": resource.Computed{}})
	news := resource.PropertyMap{"a": "b"}
	if got, err := p.Check(ctx, resource.CheckRequest{URN: thing, News: news}); err != nil || !reflect.DeepEqual(got, news) {
		t.Errorf("Check = %v, %v", got, err)
	}
	if d, err := p.Diff(ctx, resource.DiffRequest{URN: thing, NewInputs: news}); err != nil || !reflect.DeepEqual(d.Changed, []string{"a"}) {
		t.Errorf("Diff = %+v, %v; want an update of a", d, err)
	}
	if d, err := p.Diff(ctx, resource.DiffRequest{URN: thing, OldInputs: news, NewInputs: news}); err != nil || !d.ChangedUnnamed {
		t.Errorf("Diff of equal inputs = %+v, %v; want an update (diff unavailable)", d, err)
	}
	if c, err := p.Create(ctx, resource.CreateRequest{URN: thing, Inputs: news, Preview: true}); err != nil || c.ID != "" || !reflect.DeepEqual(c.Outputs, news) {
		t.Errorf("Create = %+v, %v", c, err)
	}
	if _, err := p.Create(ctx, resource.CreateRequest{URN: thing, Inputs: news}); err == nil {
		t.Error("a real Create with an unknown configuration succeeded")
	}
	if n := len(e.calls("start")); n != 0 {
		t.Errorf("%d processes started for an unknown configuration", n)
	}
	if len(e.logs) != 2 || !strings.Contains(e.logs[0].Message, "diff unavailable") || e.logs[0].URN != thing {
		t.Errorf("logs = %+v", e.logs)
	}
}

func TestHandleNeedsConfigure(t *testing.T) {
	e := newEnv(t, "modern")
	_, err := e.pool.Plugin("fake", "").Check(context.Background(), resource.CheckRequest{URN: thing})
	if err == nil || !strings.Contains(err.Error(), "not configured") {
		t.Errorf("Check on the handle = %v", err)
	}
}

func TestReadWithoutInputsKeepsOldInputs(t *testing.T) {
	e := newEnv(t, "modern", "FAKE_SECRETS=1")
	p := e.configure(t, resource.PropertyMap{})
	ins, outs := resource.PropertyMap{"b": "x"}, resource.PropertyMap{"b": "x", "out": "made"}
	r, err := p.Read(context.Background(), resource.ReadRequest{URN: thing, ID: "id-1", Inputs: ins, Outputs: outs})
	if err != nil || !reflect.DeepEqual(r.Inputs, ins) {
		t.Errorf("Read answered with no inputs = %+v, %v; want the old inputs %v kept", r, err, ins)
	}
}

func TestCreateAnswerErrors(t *testing.T) {
	e := newEnv(t, "modern")
	p := e.configure(t, resource.PropertyMap{})
	ins := resource.PropertyMap{"unknownout": true}
	_, err := p.Create(context.Background(), resource.CreateRequest{URN: thing, Inputs: ins})
	var ie *resource.InitError
	if !errors.As(err, &ie) || ie.ID != "id-1" || !reflect.DeepEqual(ie.Outputs, ins) || len(ie.Reasons) == 0 {
		t.Errorf("a create with an ID and bad outputs = %#v; want an InitError recording the ID and the inputs", err)
	}
	_, err = p.Create(context.Background(), resource.CreateRequest{URN: thing, Inputs: resource.PropertyMap{"noid": true}})
	if err == nil || !strings.Contains(err.Error(), "protocol") {
		t.Errorf("a create without an ID = %v; want an error saying the plugin broke the protocol", err)
	}
}

func TestMutatingCallsWithUnknownOutcome(t *testing.T) {
	e := newEnv(t, "modern")
	p := e.configure(t, resource.PropertyMap{})
	tests := []struct {
		name    string
		inputs  resource.PropertyMap
		timeout time.Duration
		preview bool
		unknown bool
	}{
		{"deadline", resource.PropertyMap{"hang": true}, 300 * time.Millisecond, false, true},
		{"Internal", resource.PropertyMap{"code": float64(codes.Internal)}, 0, false, true},
		{"DataLoss", resource.PropertyMap{"code": float64(codes.DataLoss)}, 0, false, true},
		// Unknown is every plain error of a provider: a clean failure here.
		{"Unknown", resource.PropertyMap{"code": float64(codes.Unknown)}, 0, false, false},
		{"InvalidArgument", resource.PropertyMap{"code": float64(codes.InvalidArgument)}, 0, false, false},
		{"preview", resource.PropertyMap{"code": float64(codes.Internal)}, 0, true, false},
	}
	for _, tt := range tests {
		ctx := context.Background()
		if tt.timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, tt.timeout)
			defer cancel()
		}
		_, err := p.Create(ctx, resource.CreateRequest{URN: thing, Inputs: tt.inputs, Preview: tt.preview})
		if err == nil || errors.Is(err, resource.ErrOutcomeUnknown) != tt.unknown {
			t.Errorf("%s: Create = %v; outcome unknown: want %v", tt.name, err, tt.unknown)
		}
	}
}
