package e2e

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// secretPlaintexts decrypts every snapshot of the dev stack with the
// stack's passphrase and returns the plaintext of each secret value in
// them (inputs and outputs, at any depth), by where it was found. Long
// multi-line values (PEM keys) give each of their body lines instead,
// leaving out lines that non-secret values also hold (an OpenSSH private
// key embeds its public key). The second result lists every place a
// secret was found.
func secretPlaintexts(t *testing.T, dir string) (map[string][]string, []string) {
	t.Helper()
	salt := ""
	for _, line := range strings.Split(readStack(t, dir), "\n") {
		if v, found := strings.CutPrefix(line, "encryptionsalt: "); found {
			salt = v
		}
	}
	crypter, err := config.OpenCrypter("e2e-passphrase", salt)
	if err != nil {
		t.Fatalf("opening the stack's crypter: %v", err)
	}
	snaps, _ := filepath.Glob(filepath.Join(dir, ".runner", ".pulumi", "stacks", "*", "dev.json"))
	if len(snaps) == 0 {
		t.Fatal("up left no snapshot")
	}
	found := map[string][]string{}
	var places []string
	var public strings.Builder
	var walk func(where string, v any, secret bool)
	walk = func(where string, v any, secret bool) {
		switch x := v.(type) {
		case resource.Secret:
			places = append(places, where)
			walk(where, x.Element, true)
		case map[string]any:
			for k, e := range x {
				if v, ok := e.(string); ok && !secret {
					// A public key and value as JSON prints them: a line of
					// a secret JSON document may repeat it.
					kj, _ := json.Marshal(k)
					vj, _ := json.Marshal(v)
					public.WriteString(string(kj) + ": " + string(vj) + "\n")
				}
				walk(where+"."+k, e, secret)
			}
		case resource.PropertyMap:
			walk(where, map[string]any(x), secret)
		case []any:
			for _, e := range x {
				walk(where+"[]", e, secret)
			}
		case string:
			if !secret {
				public.WriteString(x + "\n")
				return
			}
			if len(x) < 8 {
				return
			}
			if !strings.Contains(x, "\n") {
				found[x] = append(found[x], where)
				return
			}
			for _, line := range strings.Split(x, "\n") {
				line = strings.TrimSuffix(strings.TrimSpace(line), ",")
				if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
					found[line] = append(found[line], where)
				}
			}
		}
	}
	for _, p := range snaps {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := state.UnmarshalCheckpoint(context.Background(), data, crypter)
		if err != nil {
			t.Fatalf("decrypting %s: %v", p, err)
		}
		for _, r := range snap.Resources {
			walk(string(r.URN)+" inputs", r.Inputs, false)
			walk(string(r.URN)+" outputs", r.Outputs, false)
		}
	}
	for plain := range found {
		if strings.Contains(public.String(), plain) {
			delete(found, plain)
		}
	}
	return found, places
}

// TestSecretsNeverLeak deploys the local provider and looks for the admin
// password and the plaintext of every secret in the state (the CA's
// private key, the session key) in every file runner keeps and in
// everything its commands print.
func TestSecretsNeverLeak(t *testing.T) {
	dir := deployable(t) // app:adminPassword = adminPassword; destroyed at the end

	var printed []string // "<command>: <stdout+stderr>"
	record := func(r Result, args ...string) Result {
		printed = append(printed, strings.Join(args, " ")+":\n"+r.Stdout+r.Stderr)
		return r
	}
	must := func(args ...string) Result {
		t.Helper()
		return record(ok(t, dir, args...), args...)
	}
	must("-s", "dev", "preview")
	must("--json", "-s", "dev", "preview")
	must("-s", "dev", "--non-interactive", "up", "--yes")
	must("--json", "-s", "dev", "up", "--yes")
	must("--debug", "-s", "dev", "up", "--yes")
	must("--debug", "--json", "-s", "dev", "preview")
	must("-s", "dev", "validate")
	must("--json", "-s", "dev", "validate")
	must("-s", "dev", "show")
	must("-s", "dev", "config", "ls")
	must("--json", "-s", "dev", "config", "ls")
	must("-s", "dev", "providers")
	// The stack commands that exist by now (not --show-secrets).
	for _, args := range [][]string{{"stack", "ls"}, {"stack", "output"}, {"stack", "output", "--json"}, {"stack", "export", "--project", "ca"}, {"stack", "history"}} {
		r := run(t, dir, "", nil, append([]string{"-s", "dev"}, args...)...)
		if r.Code == 2 && strings.Contains(r.Stdout+r.Stderr, "unknown") {
			continue
		}
		record(r, args...)
	}
	// Errors (a wrong passphrase, a path into the secret) must not echo it.
	wrong := []string{"PULUMI_CONFIG_PASSPHRASE=wrong-passphrase"}
	for _, args := range [][]string{{"config", "get", "app:adminPassword"}, {"up", "--yes"}, {"--json", "up", "--yes"}} {
		r := run(t, dir, "", wrong, append([]string{"-s", "dev"}, args...)...)
		if r.Code != 3 {
			t.Errorf("%v with a wrong passphrase: exit %d", args, r.Code)
		}
		record(r, args...)
	}
	record(run(t, dir, "", nil, "-s", "dev", "config", "get", "--path", "app:adminPassword.x"), "config get --path app:adminPassword.x")
	record(run(t, dir, "", nil, "-s", "dev", "config", "set", "--path", "app:adminPassword[0]", "x"), "config set --path app:adminPassword[0]")

	secrets, kinds := secretPlaintexts(t, dir)
	sort.Strings(kinds)
	for _, want := range []string{"::ca::pulumi:pulumi:Stack::ca-dev outputs.caPrivateKeyPem", "::secrets::pulumi:pulumi:Stack::secrets-dev outputs.sessionKey"} {
		if !strings.Contains(strings.Join(kinds, "\n"), want) {
			t.Fatalf("the state holds no secret %s; it holds:\n%s", want, strings.Join(kinds, "\n"))
		}
	}
	remaining := map[string]bool{}
	for _, wheres := range secrets {
		for _, where := range wheres {
			remaining[where] = true
		}
	}
	for _, want := range []string{"urn:pulumi:dev::ca::pulumi:pulumi:Stack::ca-dev outputs.caPrivateKeyPem", "urn:pulumi:dev::secrets::pulumi:pulumi:Stack::secrets-dev outputs.sessionKey", "urn:pulumi:dev::ingress::tls:index/privateKey:PrivateKey::server-key outputs.privateKeyPem"} {
		if !remaining[want] {
			t.Errorf("nothing of %s is left to look for", want)
		}
	}
	// A positive control: the TLS key file holds the server key by design,
	// and the search must find it there.
	keyFile, err := os.ReadFile(filepath.Join(dir, ".runner", "data", "local", "dev", "ingress", "tls.key"))
	if err != nil {
		t.Fatal(err)
	}
	control := false
	for plain := range secrets {
		control = control || strings.Contains(string(keyFile), plain)
	}
	if !control {
		t.Fatal("the search does not find the server key in tls.key: it would miss a leak")
	}
	if _, ok := secrets[adminPassword]; ok {
		t.Error("the admin password itself is in the state (encrypted)")
	}

	// Printed output: neither the admin password nor any secret of the state.
	for _, out := range printed {
		if strings.Contains(out, adminPassword) {
			t.Errorf("the admin password was printed by runner %s", out)
		}
		for plain, where := range secrets {
			if strings.Contains(out, plain) {
				t.Errorf("the secret %s was printed by runner %.200s", where[0], out)
			}
		}
	}

	// Files: the admin password nowhere at all; the state's secrets nowhere
	// but in the provider's data folder, where the TLS key file holds the
	// key by design (as a Kubernetes secret would).
	files := 0
	data := filepath.Join(dir, ".runner", "data")
	err = filepath.WalkDir(filepath.Join(dir, ".runner"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		text := string(b)
		if strings.Contains(text, adminPassword) {
			t.Errorf("the admin password is in %s", path)
		}
		if strings.HasPrefix(path, data+string(filepath.Separator)) {
			return nil
		}
		for plain, where := range secrets {
			if strings.Contains(text, plain) {
				i := strings.Index(text, plain)
				t.Errorf("the secret %s is in %s in plain text: %q in ...%s...", where[0], path, plain, text[max(0, i-300):min(len(text), i+len(plain)+50)])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 5 {
		t.Fatalf("only %d files under .runner: did up run?", files)
	}
	for _, f := range []string{stackFile(dir), filepath.Join(dir, "config", "pulumi", "environment")} {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), adminPassword) {
			t.Errorf("the admin password is in %s", f)
		}
	}
}
