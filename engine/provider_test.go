package engine_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

const providerType = "pulumi:providers:test"

// newProviderEnv is an env whose "test" plugin is configurable, at
// version 1.2.3, with config test:region.
func newProviderEnv(t *testing.T) (*env, *plugintest.Provider) {
	e := newEnv(t)
	prov := &plugintest.Provider{Plugin: e.plugin, Ver: "1.2.3"}
	e.opts.Plugins = []resource.Plugin{prov}
	e.opts.Config = map[string]any{"test:region": "eu", "proj:other": "x"}
	return e, prov
}

// twoResources declares a and b.
var twoResources = resources(map[string]engine.Inputs{"a": {"n": 1}, "b": {"n": 2}})

// providerRecord returns the live provider record of the snapshot.
func (e *env) providerRecord() *state.Resource {
	e.t.Helper()
	var found *state.Resource
	for _, r := range e.snap().Resources {
		if r.Type == providerType && !r.Delete {
			if found != nil {
				e.t.Fatalf("two live providers: %s and %s", found.URN, r.URN)
			}
			found = r
		}
	}
	if found == nil {
		e.t.Fatal("no provider record")
	}
	return found
}

// providerEntries returns the journal entries of the provider from n on.
func (e *env) providerEntries(n int) []backend.Entry {
	var out []backend.Entry
	for _, en := range e.backend.Entries(project, stack)[n:] {
		if r := en.New; r != nil && r.Type == providerType {
			out = append(out, en)
		} else if r := en.Old; r != nil && r.Type == providerType {
			out = append(out, en)
		}
	}
	return out
}

func TestConfigurableProviderNew(t *testing.T) {
	e, prov := newProviderEnv(t)
	e.mustUp(twoResources)
	p := e.providerRecord()
	if p.URN.Name() != "default_1_2_3" || len(p.ID) != 36 {
		t.Errorf("provider %s id %q", p.URN, p.ID)
	}
	want := resource.PropertyMap{"region": "eu", "version": "1.2.3"}
	if !resource.DeepEqual(map[string]any(p.Inputs), map[string]any(want)) || !resource.DeepEqual(map[string]any(p.Outputs), map[string]any(want)) {
		t.Errorf("provider inputs %v outputs %v, want %v", p.Inputs, p.Outputs, want)
	}
	checks := prov.CheckConfigs()
	if len(checks) != 1 || checks[0].Olds == nil || len(checks[0].Olds) != 0 || checks[0].URN != p.URN {
		t.Errorf("CheckConfig calls %+v, want one with empty olds", checks)
	}
	if n := len(prov.DiffConfigs()); n != 0 {
		t.Errorf("%d DiffConfig calls for a new provider", n)
	}
	confs := prov.Configurations()
	if len(confs) != 1 || confs[0].Request.ID != p.ID || confs[0].Request.URN != p.URN {
		t.Fatalf("configurations %+v, want one with the provider's ID %s", confs, p.ID)
	}
	if confs[0].Calls() < 4 { // Check and Create of a and b
		t.Errorf("the configured plugin served %d calls", confs[0].Calls())
	}
	for _, name := range []string{"a", "b"} {
		if got := e.find(name).Provider; got != string(p.URN)+"::"+p.ID {
			t.Errorf("%s provider = %q", name, got)
		}
	}
	if en := e.providerEntries(0); len(en) != 2 || en[0].Op != "create" {
		t.Errorf("journal entries of the provider %+v, want its create begun and ended", en)
	}
}

func TestConfigurableProviderChanges(t *testing.T) {
	tests := []struct {
		name        string
		region      string
		replaceKeys []string
		wantOp      string // the provider's journaled step ("": none)
		newID       bool
		wantChanges map[engine.Op]int
	}{
		{"unchanged", "eu", nil, "", false, map[engine.Op]int{engine.OpSame: 3}},
		{"update", "us", nil, "update", false, map[engine.Op]int{engine.OpSame: 3}},
		{"replace", "us", []string{"region"}, "create-replacement", true, map[engine.Op]int{engine.OpSame: 1, engine.OpReplace: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, prov := newProviderEnv(t)
			prov.ReplaceKeys = tt.replaceKeys
			e.mustUp(twoResources)
			before := e.providerRecord()
			entries := len(e.backend.Entries(project, stack))
			prov.Reset()
			e.opts.Config["test:region"] = tt.region
			res := e.mustUp(twoResources)
			after := e.providerRecord()
			if (after.ID != before.ID) != tt.newID {
				t.Errorf("provider ID %s -> %s", before.ID, after.ID)
			}
			if after.Inputs["region"] != tt.region {
				t.Errorf("recorded region %v", after.Inputs["region"])
			}
			var ops []string
			for _, en := range e.providerEntries(entries) {
				if en.Kind == backend.EntryBegin {
					ops = append(ops, en.Op)
				}
			}
			if got := strings.Join(ops, ","); got != tt.wantOp {
				t.Errorf("provider steps journaled %q, want %q", got, tt.wantOp)
			}
			if !equalChanges(res.Changes, tt.wantChanges) {
				t.Errorf("changes %v, want %v", res.Changes, tt.wantChanges)
			}
			checks, diffs := prov.CheckConfigs(), prov.DiffConfigs()
			if len(checks) != 1 || checks[0].Olds["region"] != "eu" || len(diffs) != 1 || diffs[0].OldOutputs["region"] != "eu" {
				t.Errorf("CheckConfig %+v DiffConfig %+v", checks, diffs)
			}
			for _, name := range []string{"a", "b"} {
				if got := e.find(name).Provider; got != string(after.URN)+"::"+after.ID {
					t.Errorf("%s provider = %q", name, got)
				}
			}
			if tt.newID {
				checkReplacedProviderGone(t, e, prov, before)
			} else if n := len(prov.Configurations()); n != 1 {
				t.Errorf("%d configurations, want 1", n)
			}
		})
	}
}

// checkReplacedProviderGone checks the old resources of a replaced provider
// were deleted through a plugin configured with its recorded config, and
// that its record left the state.
func checkReplacedProviderGone(t *testing.T, e *env, prov *plugintest.Provider, old *state.Resource) {
	t.Helper()
	var oldConf *plugintest.Configured
	for _, c := range prov.Configurations() {
		if c.Request.ID == old.ID {
			if oldConf != nil {
				t.Error("the old provider was configured twice")
			}
			oldConf = c
		}
	}
	if oldConf == nil || oldConf.Request.Inputs["region"] != "eu" || oldConf.Calls() != 2 {
		t.Fatalf("old provider configuration %+v", oldConf)
	}
	if n := e.plugin.Count("Delete"); n != 2 {
		t.Errorf("%d deletes, want 2", n)
	}
	for _, r := range e.snap().Resources {
		if r.Delete || (r.Type == providerType && r.ID == old.ID) {
			t.Errorf("%s (id %s, delete %v) is still in the state", r.URN, r.ID, r.Delete)
		}
	}
}

// TestProviderFromStateForRefreshAndDestroy checks refresh and destroy
// configure the provider from its recorded config, not the current one.
func TestProviderFromStateForRefreshAndDestroy(t *testing.T) {
	e, prov := newProviderEnv(t)
	e.mustUp(twoResources)
	recorded := e.providerRecord()
	e.opts.Config["test:region"] = "us"
	ops := []struct {
		name string
		run  func(context.Context, engine.Options) (*engine.Result, error)
	}{{"refresh", engine.Refresh}, {"destroy", engine.Destroy}}
	for _, op := range ops {
		prov.Reset()
		if _, err := op.run(t.Context(), e.opts); err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
		confs := prov.Configurations()
		if len(confs) != 1 || confs[0].Request.ID != recorded.ID || confs[0].Request.Inputs["region"] != "eu" || confs[0].Calls() != 2 {
			t.Errorf("%s: configurations %+v, want one from the recorded config serving 2 calls", op.name, confs)
		}
		if n := len(prov.CheckConfigs()); n != 0 {
			t.Errorf("%s: %d CheckConfig calls", op.name, n)
		}
	}
	if len(e.plugin.URNs()) != 0 || len(e.snap().Resources) != 0 {
		t.Errorf("destroy left %v / %d records", e.plugin.URNs(), len(e.snap().Resources))
	}
}

// TestProviderDeletesUndeclared checks an up deletes the resources it no
// longer declares through the provider it configured, configured once.
func TestProviderDeletesUndeclared(t *testing.T) {
	e, prov := newProviderEnv(t)
	e.mustUp(twoResources)
	prov.Reset()
	e.mustUp(resources(map[string]engine.Inputs{"a": {"n": 1}}))
	if n := len(prov.Configurations()); n != 1 || e.plugin.Count("Delete") != 1 {
		t.Errorf("%d configurations, %d deletes", n, e.plugin.Count("Delete"))
	}
}

func TestProviderSecretConfig(t *testing.T) {
	checkTokenStaysSecret(t, map[string]any{"test:token": resource.Secret{Element: "pr0vider-t0ken"}}, twoResources, "pr0vider-t0ken",
		func(r *state.Resource) bool { return r.Type == providerType })
}

// checkTokenStaysSecret runs up of prog against a file backend with the
// provider env's config plus config, and checks that the provider's
// Configure got its input token as a secret, that the provider's record
// (the one isProvider picks) holds token as a secret in its inputs and
// outputs, and that no file of the backend holds the plaintext.
func checkTokenStaysSecret(t *testing.T, config map[string]any, prog engine.Program, plaintext string, isProvider func(*state.Resource) bool) {
	t.Helper()
	dir := t.TempDir()
	f, err := backend.Open("file://" + dir)
	if err != nil {
		t.Fatal(err)
	}
	e, prov := newProviderEnv(t)
	e.opts.Backend = f
	e.opts.Crypter = statetest.NewCrypter(3)
	maps.Copy(e.opts.Config, config)
	if _, err := e.up(prog); err != nil {
		t.Fatal(err)
	}
	if in := prov.Configurations()[0].Request.Inputs; !in.IsSecret("token") {
		t.Errorf("Configure got token %v, want a secret", in["token"])
	}
	snap, err := f.Load(t.Context(), project, stack, e.opts.Crypter)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range snap.Resources {
		if isProvider(r) && (!r.Inputs.IsSecret("token") || !r.Outputs.IsSecret("token")) {
			t.Errorf("recorded token %v / %v, want secrets", r.Inputs["token"], r.Outputs["token"])
		}
	}
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if strings.Contains(string(data), plaintext) {
			t.Errorf("%s holds the plaintext secret", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestProviderComputedConfig(t *testing.T) {
	e, prov := newProviderEnv(t)
	e.opts.Config["test:region"] = resource.Computed{}
	if _, err := e.preview(twoResources); err != nil {
		t.Fatalf("preview: %v", err)
	}
	confs := prov.Configurations()
	if len(confs) != 1 || confs[0].Request.ID != resource.UnknownStringValue {
		t.Fatalf("configurations %+v, want one with the unknown ID", confs)
	}
	if _, ok := confs[0].Request.Inputs["region"].(resource.Computed); !ok {
		t.Errorf("Configure got region %v, want unknown", confs[0].Request.Inputs["region"])
	}
	_, err := e.up(twoResources)
	if err == nil || !strings.Contains(err.Error(), "not known") {
		t.Errorf("up with unknown config: %v", err)
	}
}

func TestProviderMissingConfig(t *testing.T) {
	e, prov := newProviderEnv(t)
	prov.OnConfigure = func(context.Context, resource.ConfigureRequest) error {
		return &resource.MissingConfigError{Package: "test", Keys: []resource.MissingKey{{Key: "zone", Description: "where"}}}
	}
	_, err := e.up(twoResources)
	var missing *resource.MissingConfigError
	if !errors.As(err, &missing) || missing.Keys[0].Key != "zone" {
		t.Fatalf("up: %v, want a *resource.MissingConfigError", err)
	}
	if !strings.Contains(err.Error(), "runner config set test:zone") {
		t.Errorf("error %q does not say how to set the key", err)
	}
	if e.plugin.Count("Create") != 0 {
		t.Error("resources were created without their provider")
	}
}

func TestProviderCheckConfigFailure(t *testing.T) {
	e, prov := newProviderEnv(t)
	e.opts.Config["test:token"] = resource.Secret{Element: "s3cret-value"}
	prov.OnCheckConfig = func(context.Context, resource.CheckRequest) (resource.PropertyMap, error) {
		return nil, &resource.CheckFailuresError{Failures: []resource.CheckFailure{{Property: "region", Reason: "eu is not s3cret-value"}}}
	}
	_, err := e.up(twoResources)
	var failures *resource.CheckFailuresError
	if !errors.As(err, &failures) {
		t.Fatalf("up: %v, want a *resource.CheckFailuresError", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "default_1_2_3") || !strings.Contains(msg, "property region") || strings.Contains(msg, "s3cret-value") {
		t.Errorf("error %q: want the provider and property named, no secret", msg)
	}
}

// TestProviderVersionChange checks a new plugin version makes a new
// default provider: resources move to it, replaced only when DiffConfig
// between the old provider's config and the new one says so.
func TestProviderVersionChange(t *testing.T) {
	for _, replace := range []bool{false, true} {
		e, prov := newProviderEnv(t)
		e.mustUp(twoResources)
		old := e.providerRecord()
		prov.Ver = "2.0.0"
		if replace {
			prov.ReplaceKeys = []string{"version"}
		}
		res := e.mustUp(twoResources)
		p := e.providerRecord()
		if p.URN.Name() != "default_2_0_0" || p.ID == old.ID || e.find("a").Provider != string(p.URN)+"::"+p.ID {
			t.Errorf("replace %v: provider %s::%s, a's %s", replace, p.URN, p.ID, e.find("a").Provider)
		}
		if got := res.Changes[engine.OpReplace]; (got == 2) != replace {
			t.Errorf("replace %v: changes %v", replace, res.Changes)
		}
		if len(e.snap().Resources) != 4 {
			t.Errorf("replace %v: %d records, want the stack, the provider, a and b", replace, len(e.snap().Resources))
		}
	}
}

// TestBuiltinProviderUnchanged checks a built-in plugin's provider stays
// as it was: named "default", no inputs, journaled once.
func TestBuiltinProviderUnchanged(t *testing.T) {
	e := newEnv(t)
	e.opts.Config = map[string]any{"test:region": "eu"}
	e.mustUp(twoResources)
	p := e.providerRecord()
	if p.URN.Name() != "default" || len(p.Inputs) != 0 || len(p.Outputs) != 0 {
		t.Errorf("built-in provider %s inputs %v", p.URN, p.Inputs)
	}
	n := len(e.backend.Entries(project, stack))
	e.mustUp(twoResources)
	if got := len(e.providerEntries(n)); got != 0 || e.providerRecord().ID != p.ID {
		t.Errorf("second up: %d provider journal entries, id %s -> %s", got, p.ID, e.providerRecord().ID)
	}
}

// TestProviderReplacePlan checks a preview plans the replacement of every
// resource of a replaced provider, and an up executes that plan.
func TestProviderReplacePlan(t *testing.T) {
	e, prov := newProviderEnv(t)
	prov.ReplaceKeys = []string{"region"}
	e.mustUp(twoResources)
	e.opts.Config["test:region"] = "us"
	prov.Reset()
	res, err := e.preview(twoResources)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changes[engine.OpReplace] != 2 || res.Plan == nil {
		t.Fatalf("preview changes %v", res.Changes)
	}
	if confs := prov.Configurations(); len(confs) != 1 || confs[0].Request.ID != resource.UnknownStringValue {
		t.Errorf("preview configurations %+v, want one with the unknown ID", confs)
	}
	e.opts.Plan = res.Plan
	res = e.mustUp(twoResources)
	if res.Changes[engine.OpReplace] != 2 {
		t.Errorf("up changes %v", res.Changes)
	}
}

// TestProviderRecoversPending checks the resolution of an interrupted
// create reads the resource back through the provider its record names,
// configured once for the whole up.
func TestProviderRecoversPending(t *testing.T) {
	e, prov := newProviderEnv(t)
	e.mustUp(twoResources)
	p := e.providerRecord()
	j, err := e.backend.OpenJournal(t.Context(), project, stack, e.snap(), nil)
	if err != nil {
		t.Fatal(err)
	}
	entry := backendEntry(urn("c"))
	entry.New.Provider = string(p.URN) + "::" + p.ID
	if err := j.Begin(t.Context(), entry); err != nil {
		t.Fatal(err)
	}
	if _, err := e.plugin.Create(t.Context(), resource.CreateRequest{URN: urn("c"), Type: typ, Inputs: resource.PropertyMap{}}); err != nil {
		t.Fatal(err)
	}
	prov.Reset()
	e.opts.Config["test:region"] = "us" // an update: the up configures anew
	e.mustUp(resources(map[string]engine.Inputs{"a": {"n": 1}, "b": {"n": 2}, "c": {}}))
	confs := prov.Configurations()
	if len(confs) != 2 || confs[0].Request.Inputs["region"] != "eu" || confs[0].Calls() != 1 || confs[1].Request.Inputs["region"] != "us" {
		t.Errorf("configurations %+v: want the recorded one reading c back, then the updated one", confs)
	}
	if e.plugin.Count("Create") != 3 {
		t.Errorf("%d creates, want 3 (c adopted)", e.plugin.Count("Create"))
	}
}
