package pluginhost

// Tests against pulumi-resource-testprov, a real plugin on Pulumi's own
// provider server: the wire is decoded by Pulumi's implementation.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
	"github.com/runnerhq/runner/engine/pluginhost/wire"
	"github.com/runnerhq/runner/engine/resource"
)

const testprovURN = resource.URN("urn:pulumi:dev::web::pulumi:providers:testprov::default_1_2_3")

func testprovURNOf(name string) resource.URN {
	return resource.URN("urn:pulumi:dev::web::testprov:index:Thing::" + name)
}

type testprov struct {
	pool  *Pool
	store string
	mu    sync.Mutex
	logs  []LogEntry
}

func newTestprov(t *testing.T, env ...string) *testprov {
	t.Helper()
	if testing.Short() {
		t.Skip("builds pulumi-resource-testprov")
	}
	bin := providertest.Binary(t)
	tp := &testprov{store: t.TempDir()}
	tp.pool = NewPool(PoolOptions{
		Workspace: t.TempDir(),
		Environ:   append(os.Environ(), env...),
		Locate:    func(string, string) (string, error) { return bin, nil },
		Log:       func(l LogEntry) { tp.mu.Lock(); tp.logs = append(tp.logs, l); tp.mu.Unlock() },
	})
	t.Cleanup(func() { tp.pool.Close(context.Background()) })
	return tp
}

func (tp *testprov) configure(t *testing.T, extra resource.PropertyMap) resource.Plugin {
	t.Helper()
	ctx := context.Background()
	news := resource.PropertyMap{"version": "1.2.3", "store": tp.store}
	for k, v := range extra {
		news[k] = v
	}
	h := tp.pool.Plugin("testprov", "1.2.3")
	checked, err := h.CheckConfig(ctx, resource.CheckRequest{URN: testprovURN, News: news})
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.Configure(ctx, resource.ConfigureRequest{URN: testprovURN, ID: "4b0c4a44-0000-4000-8000-000000000000", Inputs: checked})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTestprovLifecycle(t *testing.T) {
	for _, mode := range []struct {
		name string
		env  []string
	}{{"modern", nil}, {"legacy", []string{providertest.EnvLegacy + "=1"}}, {"no secrets", []string{providertest.EnvAcceptSecrets + "=false"}}} {
		t.Run(mode.name, func(t *testing.T) {
			tp := newTestprov(t, mode.env...)
			p := tp.configure(t, resource.PropertyMap{"token": resource.Secret{Element: "t0k"}})
			ctx := context.Background()
			urn := testprovURNOf("a")
			ins, err := p.Check(ctx, resource.CheckRequest{URN: urn, News: resource.PropertyMap{"size": 1.0, "pw": resource.Secret{Element: "hunter2"}}, RandomSeed: make([]byte, 32)})
			if err != nil || !strings.HasPrefix(ins["name"].(string), "a-") {
				t.Fatalf("Check = %v, %v", ins, err)
			}
			pre, err := p.Create(ctx, resource.CreateRequest{URN: urn, Inputs: ins, Preview: true})
			if err != nil || pre.ID != "" || pre.Outputs["generation"] != (resource.Computed{}) {
				t.Fatalf("preview Create = %+v, %v", pre, err)
			}
			made, err := p.Create(ctx, resource.CreateRequest{URN: urn, Inputs: ins})
			if err != nil || made.ID == "" || made.Outputs["generation"] != 1.0 || made.Outputs["pw"] != (resource.Secret{Element: "hunter2"}) {
				t.Fatalf("Create = %+v, %v", made, err)
			}
			news := ins.Copy(0)
			news["size"] = 2.0
			d, err := p.Diff(ctx, resource.DiffRequest{URN: urn, ID: made.ID, OldInputs: ins, OldOutputs: made.Outputs, NewInputs: news})
			if err != nil || len(d.Changed) != 1 || d.Changed[0] != "size" || len(d.Replaces) != 0 {
				t.Fatalf("Diff = %+v, %v", d, err)
			}
			up, err := p.Update(ctx, resource.UpdateRequest{URN: urn, ID: made.ID, OldInputs: ins, OldOutputs: made.Outputs, NewInputs: news})
			if err != nil || up.Outputs["generation"] != 2.0 || up.Outputs["size"] != 2.0 {
				t.Fatalf("Update = %+v, %v", up, err)
			}
			r, err := p.Read(ctx, resource.ReadRequest{URN: urn, ID: made.ID}) // an import
			if err != nil || r.ID != made.ID || r.Inputs["size"] != 2.0 || r.Outputs["generation"] != 2.0 {
				t.Fatalf("Read = %+v, %v", r, err)
			}
			if err := p.Delete(ctx, resource.DeleteRequest{URN: urn, ID: made.ID, Inputs: news, Outputs: up.Outputs}); err != nil {
				t.Fatal(err)
			}
			if r, err := p.Read(ctx, resource.ReadRequest{URN: urn, ID: made.ID, Inputs: news, Outputs: up.Outputs}); err != nil || r.ID != "" {
				t.Fatalf("Read after Delete = %+v, %v", r, err)
			}
		})
	}
}

func TestTestprovErrors(t *testing.T) {
	tp := newTestprov(t)
	ctx := context.Background()
	h := tp.pool.Plugin("testprov", "1.2.3")
	_, err := h.Configure(ctx, resource.ConfigureRequest{URN: testprovURN, Inputs: resource.PropertyMap{"version": "1.2.3"}})
	var mc *resource.MissingConfigError
	if !errors.As(err, &mc) || len(mc.Keys) != 1 || mc.Keys[0].Key != "store" {
		t.Errorf("Configure without store = %v", err)
	}
	_, err = h.CheckConfig(ctx, resource.CheckRequest{URN: testprovURN, News: resource.PropertyMap{"zone": "Not Valid"}})
	var cf *resource.CheckFailuresError
	if !errors.As(err, &cf) || cf.Failures[0].Property != "zone" {
		t.Errorf("CheckConfig of a bad zone = %v", err)
	}

	p := tp.configure(t, nil)
	_, err = p.Check(ctx, resource.CheckRequest{URN: testprovURNOf("c"), News: resource.PropertyMap{"checkFail": "size"}})
	if !errors.As(err, &cf) || cf.Failures[0].Property != "size" {
		t.Errorf("Check failure = %v", err)
	}
	_, err = p.Create(ctx, resource.CreateRequest{URN: testprovURNOf("i"), Inputs: resource.PropertyMap{"initError": true}})
	var ie *resource.InitError
	if !errors.As(err, &ie) || ie.ID == "" || ie.Outputs["initError"] != true || len(ie.Reasons) != 1 {
		t.Errorf("init failure = %v", err)
	}
	start := time.Now()
	_, err = p.Create(ctx, resource.CreateRequest{URN: testprovURNOf("h"), Inputs: resource.PropertyMap{"hang": true}, Timeout: time.Second})
	if err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("a hanging Create with a 1 s timeout = %v after %s", err, time.Since(start))
	}
	_, err = p.Create(ctx, resource.CreateRequest{URN: testprovURNOf("x"), Inputs: resource.PropertyMap{"crash": "create"}})
	if err == nil || !strings.Contains(err.Error(), "exited with status 2 during create") || !strings.Contains(err.Error(), "crashing on purpose") {
		t.Errorf("crash = %v", err)
	}
}

// TestTestprovRefusedConfig checks a plugin's refusal of its configuration
// (a bad zone at CheckConfig, a store it cannot create at Configure) is a
// *resource.ConfigureError carrying the pool's help, secrets masked, while
// missing keys stay a *resource.MissingConfigError.
func TestTestprovRefusedConfig(t *testing.T) {
	tp := newTestprov(t)
	tp.pool.opts.ConfigureHelp = map[string]string{"testprov": "set testprov:store to a directory"}
	ctx := context.Background()
	h := tp.pool.Plugin("testprov", "1.2.3")
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	inputs := resource.PropertyMap{"version": "1.2.3", "store": filepath.Join(file, "s3cret-store"), "token": resource.Secret{Element: "s3cret-store"}}
	_, err := h.Configure(ctx, resource.ConfigureRequest{URN: testprovURN, Inputs: inputs})
	var ce *resource.ConfigureError
	if !errors.As(err, &ce) || ce.Package != "testprov" {
		t.Fatalf("Configure with a store under a file = %v, want a *resource.ConfigureError", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "the testprov plugin refused its configuration: testprov: create the store directory") ||
		!strings.HasSuffix(msg, "\nset testprov:store to a directory") || strings.Contains(msg, "s3cret-store") {
		t.Errorf("message %q: want the plugin's reason, the help, no secret", msg)
	}
	_, err = h.CheckConfig(ctx, resource.CheckRequest{URN: testprovURN, News: resource.PropertyMap{"zone": "Not Valid"}})
	var cf *resource.CheckFailuresError
	if !errors.As(err, &ce) || !errors.As(err, &cf) || !strings.Contains(err.Error(), "refused its configuration: property zone") {
		t.Errorf("CheckConfig of a bad zone = %v", err)
	}
	_, err = h.Configure(ctx, resource.ConfigureRequest{URN: testprovURN, Inputs: resource.PropertyMap{"version": "1.2.3"}})
	var mc *resource.MissingConfigError
	if !errors.As(err, &mc) || errors.As(err, &ce) {
		t.Errorf("Configure without store = %v, want only a *resource.MissingConfigError", err)
	}
}

func TestTestprovConcurrentAndLarge(t *testing.T) {
	tp := newTestprov(t)
	p := tp.configure(t, nil)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := p.Create(ctx, resource.CreateRequest{URN: testprovURNOf(string(rune('a' + i))), Inputs: resource.PropertyMap{"sleepMs": 300.0}})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := providertest.Store(tp.store).MaxInFlight(); n < 2 {
		t.Errorf("at most %d calls ran at once: calls to one plugin must not be serialized", n)
	}
	big := strings.Repeat("x", 6<<20)
	got, err := p.Create(ctx, resource.CreateRequest{URN: testprovURNOf("big"), Inputs: resource.PropertyMap{"blob": big}})
	if err != nil || got.Outputs["blob"] != big {
		t.Errorf("a 6 MiB Create: %v", err)
	}
}

func TestTestprovCancelAndBadStart(t *testing.T) {
	tp := newTestprov(t)
	p := tp.configure(t, nil)
	done := make(chan error, 1)
	go func() {
		_, err := p.Create(context.Background(), resource.CreateRequest{URN: testprovURNOf("h"), Inputs: resource.PropertyMap{"hang": true}})
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	if err := tp.pool.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("a hanging Create succeeded after Cancel")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Cancel did not end a hanging Create")
	}
	for _, bad := range []string{"noport", "garbage"} {
		tp := newTestprov(t, providertest.EnvBadStart+"="+bad)
		_, err := tp.pool.Plugin("testprov", "").CheckConfig(context.Background(), resource.CheckRequest{URN: testprovURN})
		if err == nil || !strings.Contains(err.Error(), providertest.BinaryName) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestTestprovAssetsAndReferences(t *testing.T) {
	tp := newTestprov(t)
	p := tp.configure(t, nil)
	ctx := context.Background()
	blob := resource.URN("urn:pulumi:dev::web::testprov:index:Blob::b")
	asset := resource.NewTextAsset("hello")
	ins := resource.PropertyMap{"asset": asset}
	made, err := p.Create(ctx, resource.CreateRequest{URN: blob, Type: providertest.TypeBlob, Inputs: ins})
	if err != nil || made.Outputs["assetText"] != "hello" || made.Outputs["assetHash"] != asset.Hash {
		t.Fatalf("Create of a Blob = %+v, %v", made, err)
	}
	// Read gets the asset elided to its hash, and the contents come back.
	r, err := p.Read(ctx, resource.ReadRequest{URN: blob, Type: providertest.TypeBlob, ID: made.ID, Inputs: ins, Outputs: made.Outputs})
	if err != nil || r.Outputs["asset"] != asset || r.Inputs["asset"] != asset {
		t.Fatalf("Read of a Blob = %+v, %v", r, err)
	}
	ref := resource.URN("urn:pulumi:dev::web::testprov:index:Ref::r")
	target := resource.ResourceReference{URN: testprovURNOf("t"), ID: "thing-1", PackageVersion: "1.2.3"}
	got, err := p.Create(ctx, resource.CreateRequest{URN: ref, Type: providertest.TypeRef, Inputs: resource.PropertyMap{"target": target}})
	if err != nil || got.Outputs["targetUrn"] != string(target.URN) || got.Outputs["targetId"] != "thing-1" {
		t.Fatalf("Create of a Ref = %+v, %v", got, err)
	}
}

// TestTestprovReferencesPerAcceptance: a resource reference reaches a
// plugin's Create as a reference only when its Configure accepted
// resources, else as the resource's ID (as Pulumi's engine sends it);
// a method's __self__ is a reference either way, as Pulumi's Call sends
// it.
func TestTestprovReferencesPerAcceptance(t *testing.T) {
	for _, accept := range []bool{true, false} {
		t.Run(fmt.Sprintf("accept=%v", accept), func(t *testing.T) {
			tp := newTestprov(t, fmt.Sprintf("%s=%v", providertest.EnvAcceptResources, accept))
			p := tp.configure(t, nil)
			ctx := context.Background()
			target := resource.ResourceReference{URN: testprovURNOf("t"), ID: "thing-1", PackageVersion: "1.2.3"}
			got, err := p.Create(ctx, resource.CreateRequest{URN: "urn:pulumi:dev::web::testprov:index:Ref::r", Type: providertest.TypeRef,
				Inputs: resource.PropertyMap{"target": target}})
			if err != nil {
				t.Fatal(err)
			}
			if _, sawRef := got.Outputs["targetUrn"]; sawRef != accept || got.Outputs["targetId"] != "thing-1" {
				t.Errorf("the plugin saw the reference as %v", got.Outputs)
			}
			self := resource.ResourceReference{URN: "urn:pulumi:dev::web::testprov:index:Pair::pair"}
			ret, err := p.(resource.Caller).Call(ctx, resource.CallRequest{Token: "testprov:index:Pair/greet",
				Args: resource.PropertyMap{"__self__": self, "greeting": "hi"}})
			if err != nil || ret.Return["message"] != "hi from pair" || ret.Return["selfKind"] != "reference" {
				t.Errorf("greet answered %v, %v; want __self__ seen as a reference", ret.Return, err)
			}
		})
	}
}

// TestTestprovOutputValuesPerAcceptance: an output value reaches a
// method as an output value, with its dependencies, only when the
// plugin's Configure accepted outputs, else downgraded (a secret stays
// secret), as Pulumi's engine sends it.
func TestTestprovOutputValuesPerAcceptance(t *testing.T) {
	dep := testprovURNOf("t")
	for _, accept := range []bool{true, false} {
		t.Run(fmt.Sprintf("accept=%v", accept), func(t *testing.T) {
			tp := newTestprov(t, fmt.Sprintf("%s=%v", providertest.EnvAcceptOutputs, accept))
			p := tp.configure(t, nil)
			self := resource.ResourceReference{URN: "urn:pulumi:dev::web::testprov:index:Pair::pair"}
			for _, tt := range []struct {
				greeting any
				kind     string // accepted; else downgraded
				deps     int
			}{
				{resource.Output{Element: "hi", Known: true, Dependencies: []resource.URN{dep}}, "output", 1},
				{resource.Output{Element: "hi", Known: true, Secret: true}, "output", 0},
			} {
				ret, err := p.(resource.Caller).Call(context.Background(), resource.CallRequest{Token: "testprov:index:Pair/greet",
					Args: resource.PropertyMap{"__self__": self, "greeting": tt.greeting}})
				if err != nil {
					t.Fatal(err)
				}
				o := tt.greeting.(resource.Output)
				kind, deps := tt.kind, tt.deps
				if !accept {
					kind, deps = "plain", 0
					if o.Secret {
						kind = "secret"
					}
				}
				got, _ := ret.Return["greetingDeps"].([]any)
				if ret.Return["message"] != "hi from pair" || ret.Return["greetingKind"] != kind || len(got) != deps {
					t.Errorf("greet of %v answered %v; want greetingKind %s and %d dependencies", o, ret.Return, kind, deps)
				}
			}
		})
	}
}

// TestAnswered: output values in a Construct's or Call's answer add their
// dependencies to their property's and are downgraded, as Pulumi's engine
// reads them.
func TestAnswered(t *testing.T) {
	a, b := testprovURNOf("a"), testprovURNOf("b")
	s, err := wire.Marshal(resource.PropertyMap{
		"x": resource.Output{Element: "v", Known: true, Secret: true, Dependencies: []resource.URN{a, b}},
		"y": map[string]any{"z": resource.Output{Dependencies: []resource.URN{b}}},
		"w": "plain",
	}, wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepOutputValues: true})
	if err != nil {
		t.Fatal(err)
	}
	m, deps, err := answered(s, map[string][]resource.URN{"x": {a}, "w": {a}})
	if err != nil {
		t.Fatal(err)
	}
	if !resource.DeepEqual(m["x"], resource.Secret{Element: "v"}) || m["w"] != "plain" {
		t.Errorf("answered %#v, want x a secret and w plain", m)
	}
	if y, _ := m["y"].(map[string]any); y == nil || y["z"] != (resource.Computed{}) {
		t.Errorf("an unknown output value answered as %#v", m["y"])
	}
	if fmt.Sprint(deps) != fmt.Sprint(map[string][]resource.URN{"x": {a, b}, "y": {b}, "w": {a}}) {
		t.Errorf("dependencies %v", deps)
	}
}
