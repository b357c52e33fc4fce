package e2e

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServiceOnATakenPortAndItsEnvironment pins app:port to a port this
// test listens on: up must fail (exit 1) naming the port and the pid that
// holds it, and leave no service behind. Once the port is free, up
// succeeds, and the service it leaves running holds neither the
// passphrase, nor the admin password, nor any secret of the state, nor
// anything else of runner's environment, in its environment or on its
// command line.
func TestServiceOnATakenPortAndItsEnvironment(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())

	dir := deployable(t)
	const envSecret = "e2e-env-file-secret-5d2a"
	envFile := filepath.Join(dir, "config", "pulumi", "environment")
	b, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(envFile, append(b, []byte("AWS_SECRET_ACCESS_KEY="+envSecret+"\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, "-s", "dev", "config", "set", "app:port", port)

	r := run(t, dir, "", nil, "-s", "dev", "--non-interactive", "up", "--yes")
	out := r.Stdout + r.Stderr
	if r.Code != 1 {
		t.Fatalf("up with app:port taken exited %d, want 1\n%s", r.Code, out)
	}
	for _, want := range []string{"port " + port + " on 127.0.0.1 is already in use", fmt.Sprintf("pid %d", os.Getpid())} {
		if !strings.Contains(out, want) {
			t.Errorf("up does not say %q:\n%s", want, out)
		}
	}
	pidFile := filepath.Join(dir, ".runner", "data", "local", "dev", "app", "service.pid")
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Errorf("a service was left behind on the taken port (%v)", err)
	}

	l.Close()
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
	url := "https://127.0.0.1:" + port + "/"
	if code, body := get(t, dir, url, "", ""); code != 200 {
		t.Fatalf("GET %s after up: %d %s", url, code, body)
	}

	pid := servicePID(t, dir)
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatalf("reading the service's environment: %v", err)
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cmdline), "serve-local") {
		t.Fatalf("pid %d is not the service: %q", pid, cmdline)
	}
	secrets, _ := secretPlaintexts(t, dir)
	forbidden := map[string]string{"the passphrase": "e2e-passphrase", "the admin password": adminPassword, "the environment file's secret": envSecret}
	for plain, where := range secrets {
		forbidden["the secret "+where[0]] = plain
	}
	for what, s := range forbidden {
		for name, text := range map[string]string{"environment": string(environ), "command line": string(cmdline)} {
			if strings.Contains(text, s) {
				t.Errorf("%s is in the service's %s", what, name)
			}
		}
	}
	allowed := map[string]bool{"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "LANG": true, "LANGUAGE": true, "TZ": true, "TMPDIR": true,
		"RUNNER_SERVICE_CONFIG_SHA256": true,
		// Not inherited: the process plugin's own mark (a hash of the
		// resource's URN), which finds the service again after a kill.
		"RUNNER_PROCESS_MARKER": true}
	for _, kv := range strings.Split(strings.TrimRight(string(environ), "\x00"), "\x00") {
		k, _, _ := strings.Cut(kv, "=")
		if !allowed[k] && !strings.HasPrefix(k, "LC_") {
			t.Errorf("the service inherited %s", k)
		}
	}
}
