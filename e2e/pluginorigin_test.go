package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPluginsChosenByTheEnvironmentFileAreNamed: a PATH line in a cloned
// workspace's environment file put a script in place of a plugin, silently,
// even for a read-only preview. The semantics stay (MARA's), but such a
// plugin, and one from a plugin cache the file's PULUMI_HOME chooses, is
// named in `plugin ls` (text and JSON) and in the run's log. runner creates
// the environment file 0600 (it may hold the passphrase).
func TestPluginsChosenByTheEnvironmentFileAreNamed(t *testing.T) {
	dir := workspace(t)
	ok(t, dir, "stack", "init", "dev")
	envFile := filepath.Join(dir, "config", "pulumi", "environment")
	if st, err := os.Stat(envFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the environment file runner created: %v %v, want mode 0600", st.Mode(), err)
	}
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	plugin := filepath.Join(bin, "pulumi-resource-kubernetes")
	if err := os.WriteFile(plugin, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(envFile, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH") + "\n")
	f.Close()

	ls := ok(t, dir, "plugin", "ls")
	if !strings.Contains(ls.Stdout, "Note: kubernetes "+plugin+" was found in the folder "+bin+", which the environment file "+envFile+" puts on PATH") {
		t.Errorf("plugin ls does not name the plugin the environment file chose:\n%s", ls.Stdout)
	}
	if js := ok(t, dir, "plugin", "ls", "--json").Stdout; !strings.Contains(js, `"origin": "the folder `+bin) {
		t.Errorf("plugin ls --json has no origin for it:\n%s", js)
	}
	for _, kv := range [][2]string{{"kubernetes:kubeconfig", filepath.Join(dir, "kc")}, {"kubernetes:context_name", "a"}, {"kubernetes:cluster_name", "b"}} {
		ok(t, dir, "config", "set", kv[0], kv[1])
	}
	for _, k := range []string{"prometheus:adminpass", "sirius:accounts_pwd", "sirius:ledger_pwd", "sirius:demo_login_pwd"} {
		run(t, dir, "a-secret-value", nil, "config", "set", "--secret", k)
	}
	kc := "apiVersion: v1\nkind: Config\nclusters:\n- name: b\n  cluster: {server: \"https://127.0.0.1:1\"}\ncontexts:\n- name: a\n  context: {cluster: b, user: u}\nusers:\n- name: u\n  user: {token: t}\ncurrent-context: a\n"
	os.WriteFile(filepath.Join(dir, "kc"), []byte(kc), 0o600)
	r := run(t, dir, "", nil, "-p", "kubeconfig", "--non-interactive", "preview")
	if !strings.Contains(r.Stderr+r.Stdout, "plugin kubernetes 4.34.2 runs "+plugin+", found in the folder "+bin) {
		t.Errorf("the run's log does not name the plugin the environment file chose:\n%s%s", r.Stdout, r.Stderr)
	}

	home := t.TempDir()
	cached := filepath.Join(home, "plugins", "resource-testy-v1.0.0", "pulumi-resource-testy")
	os.MkdirAll(filepath.Dir(cached), 0o755)
	os.WriteFile(cached, []byte("#!/bin/sh\nexit 1\n"), 0o755)
	f, _ = os.OpenFile(envFile, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("PULUMI_HOME=" + home + "\n")
	f.Close()
	if ls := ok(t, dir, "plugin", "ls").Stdout; !strings.Contains(ls, "Note: testy "+cached+" was found in the plugin cache "+filepath.Join(home, "plugins")+", which PULUMI_HOME in the environment file") {
		t.Errorf("plugin ls does not name the plugin cache the environment file chose:\n%s", ls)
	}
}
