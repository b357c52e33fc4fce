package plugins

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

// A preview's outputs are a promise: every output a plugin predicts must be
// the one the real create or update returns (with the same secrecy), and
// the outputs it can know from its inputs must not be left unknown, or a
// whole-graph preview lists changes downstream that up does not make.

type prediction struct {
	name string
	typ  string
	in   resource.PropertyMap
	// update, when set, are new inputs for an update in place of the
	// created resource.
	update resource.PropertyMap
	// known lists the outputs the preview must predict.
	known []string
}

func predictions(t *testing.T, dir string) []prediction {
	caKey := create(t, "tls:index/privateKey:PrivateKey", resource.PropertyMap{"algorithm": "ECDSA", "ecdsaCurve": "P256"})
	caCert := create(t, "tls:index/selfSignedCert:SelfSignedCert", resource.PropertyMap{
		"privateKeyPem": caKey["privateKeyPem"], "subject": map[string]any{"commonName": "ca"},
		"isCaCertificate": true, "validityPeriodHours": 24.0, "allowedUses": []any{"cert_signing"},
	})
	serverKey := create(t, "tls:index/privateKey:PrivateKey", resource.PropertyMap{"algorithm": "ED25519"})
	csr := create(t, "tls:index/certRequest:CertRequest", resource.PropertyMap{
		"privateKeyPem": serverKey["privateKeyPem"], "subject": map[string]any{"commonName": "127.0.0.1"},
	})
	file := filepath.Join(dir, "f")
	return []prediction{
		{name: "seeded integer", typ: "random:index/randomInteger:RandomInteger",
			in: resource.PropertyMap{"min": 1.0, "max": 1000.0, "seed": "s"}, known: []string{"result", "min", "max", "seed"}},
		{name: "integer of a one-number range", typ: "random:index/randomInteger:RandomInteger",
			in: resource.PropertyMap{"min": 7.0, "max": 7.0}, known: []string{"result"}},
		{name: "integer", typ: "random:index/randomInteger:RandomInteger", in: resource.PropertyMap{"min": 1.0, "max": 1000.0}},
		{name: "string", typ: "random:index/randomString:RandomString", in: resource.PropertyMap{"length": 12.0, "special": false}, known: []string{"length"}},
		{name: "string with the old name of numeric", typ: "random:index/randomString:RandomString", in: resource.PropertyMap{"length": 12.0, "number": false}},
		{name: "password", typ: "random:index/randomPassword:RandomPassword", in: resource.PropertyMap{"length": 12.0}},
		{name: "id", typ: "random:index/randomId:RandomId", in: resource.PropertyMap{"byteLength": 8.0, "prefix": "p-"}, known: []string{"prefix"}},
		{name: "private key", typ: "tls:index/privateKey:PrivateKey", in: resource.PropertyMap{"algorithm": "ECDSA", "ecdsaCurve": "P384"}},
		{name: "self-signed certificate", typ: "tls:index/selfSignedCert:SelfSignedCert", in: resource.PropertyMap{
			"privateKeyPem": caKey["privateKeyPem"], "subject": map[string]any{"commonName": "x"}, "validityPeriodHours": 24.0,
			"earlyRenewalHours": 1.0, "allowedUses": []any{"digital_signature"},
		}, known: []string{"keyAlgorithm", "readyForRenewal"}},
		{name: "certificate due at once", typ: "tls:index/selfSignedCert:SelfSignedCert", in: resource.PropertyMap{
			"privateKeyPem": caKey["privateKeyPem"], "subject": map[string]any{"commonName": "x"}, "validityPeriodHours": 1.0,
			"earlyRenewalHours": 2.0, "allowedUses": []any{"digital_signature"},
		}, known: []string{"keyAlgorithm", "readyForRenewal"}},
		{name: "certificate request", typ: "tls:index/certRequest:CertRequest", in: resource.PropertyMap{
			"privateKeyPem": serverKey["privateKeyPem"], "subject": map[string]any{"commonName": "127.0.0.1"},
		}, known: []string{"keyAlgorithm"}},
		{name: "locally signed certificate", typ: "tls:index/locallySignedCert:LocallySignedCert", in: resource.PropertyMap{
			"certRequestPem": csr["certRequestPem"], "caPrivateKeyPem": caKey["privateKeyPem"], "caCertPem": caCert["certPem"],
			"validityPeriodHours": 24.0, "allowedUses": []any{"server_auth"},
		}, known: []string{"caKeyAlgorithm", "readyForRenewal"}},
		{name: "command", typ: "command:local:Command", in: resource.PropertyMap{"create": "echo hi"}},
		{name: "command without create", typ: "command:local:Command", in: resource.PropertyMap{"delete": "true"},
			update: resource.PropertyMap{"delete": "echo bye"}, known: []string{"stdout", "stderr"}},
		{name: "secret command", typ: "command:local:Command", in: resource.PropertyMap{"create": "echo hi", "stdin": resource.Secret{Element: "s"}},
			update: resource.PropertyMap{"create": "echo hi", "stdin": resource.Secret{Element: "s"}, "delete": "true"}},
		{name: "command with an update", typ: "command:local:Command", in: resource.PropertyMap{"create": "echo a", "update": "echo b"},
			update: resource.PropertyMap{"create": "echo c", "update": "echo b"}},
		{name: "file", typ: "file:index:File", in: resource.PropertyMap{"path": file, "content": "a"},
			update: resource.PropertyMap{"path": file, "content": "b", "mode": "0600"}, known: []string{"path", "sha256", "mode", "content"}},
		{name: "secret file", typ: "file:index:File", in: resource.PropertyMap{"path": file + "s", "content": resource.Secret{Element: "a"}},
			update: resource.PropertyMap{"path": file + "s", "content": resource.Secret{Element: "b"}}, known: []string{"path", "sha256"}},
		{name: "pinned port", typ: "process:index:Port", in: resource.PropertyMap{"port": 40123.0}, known: []string{"host", "assigned"}},
		{name: "free port", typ: "process:index:Port", in: resource.PropertyMap{"host": "127.0.0.1"}, known: []string{"host"}},
	}
}

func plugin(t *testing.T, typ string) resource.Plugin {
	for _, p := range Builtin() {
		if p.Package() == resource.Package(typ) {
			return p
		}
	}
	t.Fatalf("no plugin serves %s", typ)
	return nil
}

// create makes a real resource and returns its outputs.
func create(t *testing.T, typ string, in resource.PropertyMap) resource.PropertyMap {
	t.Helper()
	p := plugin(t, typ)
	checked, err := p.Check(t.Context(), resource.CheckRequest{Type: typ, News: in})
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Create(t.Context(), resource.CreateRequest{Type: typ, Inputs: checked})
	if err != nil {
		t.Fatal(err)
	}
	return r.Outputs
}

func TestPreviewPredictsWhatUpReturns(t *testing.T) {
	ctx := context.Background()
	for _, c := range predictions(t, t.TempDir()) {
		t.Run(c.name, func(t *testing.T) {
			p := plugin(t, c.typ)
			in, err := p.Check(ctx, resource.CheckRequest{Type: c.typ, News: c.in})
			if err != nil {
				t.Fatal(err)
			}
			pre, err := p.Create(ctx, resource.CreateRequest{Type: c.typ, Inputs: in, Preview: true})
			if err != nil {
				t.Fatalf("preview create: %v", err)
			}
			real, err := p.Create(ctx, resource.CreateRequest{Type: c.typ, Inputs: in})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			comparePrediction(t, "create", pre.Outputs, real.Outputs, c.known)
			if c.update != nil {
				checkUpdate(t, p, c, in, real)
			}
			for k := range c.in {
				checkUnknownInput(t, p, c.typ, c.in, k)
			}
		})
	}
}

// checkUpdate compares a preview of the update (or, when the plugin
// replaces, of the replacement's create) with the real one.
func checkUpdate(t *testing.T, p resource.Plugin, c prediction, olds resource.PropertyMap, created resource.CreateResponse) {
	ctx := context.Background()
	news, err := p.Check(ctx, resource.CheckRequest{Type: c.typ, Olds: olds, News: c.update})
	if err != nil {
		t.Fatal(err)
	}
	diff, err := p.Diff(ctx, resource.DiffRequest{Type: c.typ, ID: created.ID, OldInputs: olds, OldOutputs: created.Outputs, NewInputs: news})
	if err != nil || len(diff.Changed) == 0 || len(diff.Replaces) > 0 {
		t.Fatalf("diff = %+v, %v; the case wants an update in place", diff, err)
	}
	req := resource.UpdateRequest{Type: c.typ, ID: created.ID, OldInputs: olds, OldOutputs: created.Outputs, NewInputs: news, Preview: true}
	pre, err := p.Update(ctx, req)
	if err != nil {
		t.Fatalf("preview update: %v", err)
	}
	req.Preview = false
	real, err := p.Update(ctx, req)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	comparePrediction(t, "update", pre.Outputs, real.Outputs, c.known)
}

// checkUnknownInput previews a create whose input key is unknown: the
// output of the same name, when there is one, must be unknown too.
func checkUnknownInput(t *testing.T, p resource.Plugin, typ string, known resource.PropertyMap, key string) {
	in := make(resource.PropertyMap, len(known))
	for k, v := range known {
		in[k] = v
	}
	in[key] = resource.Computed{}
	checked, err := p.Check(context.Background(), resource.CheckRequest{Type: typ, News: in})
	if err != nil {
		t.Fatalf("check with %s unknown: %v", key, err)
	}
	pre, err := p.Create(context.Background(), resource.CreateRequest{Type: typ, Inputs: checked, Preview: true})
	if err != nil {
		t.Fatalf("preview with %s unknown: %v", key, err)
	}
	if v, ok := pre.Outputs[key]; ok && !resource.ContainsComputed(v) {
		t.Errorf("with input %s unknown, the preview predicts output %s = %v", key, key, v)
	}
}

func comparePrediction(t *testing.T, what string, predicted, real resource.PropertyMap, known []string) {
	t.Helper()
	for k, rv := range real {
		pv, ok := predicted[k]
		switch {
		case !ok:
			t.Errorf("%s: the preview does not name output %s (%v)", what, k, rv)
		case resource.ContainsComputed(pv):
			if slices.Contains(known, k) {
				t.Errorf("%s: output %s is unknown in the preview, but the inputs determine it (%v)", what, k, rv)
			}
			if _, secret := rv.(resource.Secret); secret != isSecret(pv) {
				t.Errorf("%s: output %s is secret %v in the preview, %v for real", what, k, isSecret(pv), secret)
			}
		case !resource.DeepEqual(pv, rv):
			t.Errorf("%s: the preview predicts %s = %#v, the real value is %#v", what, k, pv, rv)
		}
	}
	for k, pv := range predicted {
		if _, ok := real[k]; !ok {
			t.Errorf("%s: the preview names output %s = %v, which the real one lacks", what, k, pv)
		}
	}
}

func isSecret(v any) bool {
	_, ok := v.(resource.Secret)
	return ok
}
