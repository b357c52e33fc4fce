package hostileclouds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A context whose cluster has no server passed validation; the kubernetes
// plugin refused it only after the kubeconfig project had run (exit 3 with
// state written). Now validation names the file, the line and the cluster,
// before anything runs.
func TestKubeconfigContextWithoutServer(t *testing.T) {
	e := newEnv(t)
	kc := filepath.Join(e.home, "kube.yaml")
	file := "apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster: {insecure-skip-tls-verify: true}\n" +
		"users:\n- name: u\n  user: {token: hostile-kube-token}\ncontexts:\n- name: lab\n  context: {cluster: lab, user: u}\n"
	if err := os.WriteFile(kc, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	e.ok("config", "set", "kubernetes:kubeconfig", kc)
	e.ok("config", "set", "kubernetes:context_name", "lab")
	for k, v := range secrets {
		if r := e.run(v, "config", "set", "--secret", k); r.Code != 0 {
			t.Fatalf("config set %s: %s", k, r.Stderr)
		}
	}
	r := e.run("", "-p", "kubeconfig", "up", "--yes")
	if r.Code != 3 || !strings.Contains(r.Stderr, kc+": line 10: the context lab names the cluster lab, which has no server") {
		t.Fatalf("up: exit %d, want 3 naming the file and line\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, ".runner", "stacks", "dev", "kubeconfig")); err == nil {
		t.Error("the kubeconfig project ran")
	}
}
