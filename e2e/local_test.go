package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const adminPassword = "e2e-admin-password-9c1f"

// deployable returns a workspace with the local provider's secret set.
func deployable(t *testing.T) string {
	t.Helper()
	dir := workspace(t)
	r := run(t, dir, adminPassword, nil, "-s", "dev", "config", "set", "--secret", "app:adminPassword")
	if r.Code != 0 {
		t.Fatalf("config set: %s", r.Stderr)
	}
	t.Cleanup(func() { run(t, dir, "", nil, "--non-interactive", "destroy", "--yes") })
	return dir
}

var urlLine = regexp.MustCompile(`URL: (https://127\.0\.0\.1:(\d+)/)`)

// get fetches url trusting only the workspace's CA.
func get(t *testing.T, dir, url, user, pass string) (int, string) {
	t.Helper()
	pem, err := os.ReadFile(filepath.Join(dir, ".runner", "data", "local", "dev", "ca", "ca.crt"))
	if err != nil {
		t.Fatalf("the CA certificate is missing: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	b.Write(buf[:n])
	return resp.StatusCode, b.String()
}

// summary returns the rows of the summary event of a --json run.
func summary(t *testing.T, out string) map[string]map[string]any {
	t.Helper()
	rows := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("a --json line is not JSON: %q", line)
		}
		for _, k := range []string{"type", "time", "project"} {
			if _, ok := e[k]; !ok {
				t.Fatalf("event without %q: %s", k, line)
			}
		}
		if e["v"] != 1.0 {
			t.Fatalf("event without the stream version \"v\": 1: %s", line)
		}
		if e["type"] == "step-done" {
			for _, k := range []string{"op", "urn", "duration_ms"} {
				if _, ok := e[k]; !ok {
					t.Fatalf("step event without %q: %s", k, line)
				}
			}
		}
		if e["type"] == "summary" {
			for _, r := range e["projects"].([]any) {
				row := r.(map[string]any)
				rows[row["project"].(string)] = row
			}
		}
	}
	if len(rows) == 0 {
		t.Fatalf("no summary event in:\n%s", out)
	}
	return rows
}

func changes(row map[string]any) int {
	counts, _ := row["counts"].(map[string]any)
	n := 0
	for _, k := range []string{"create", "update", "replace", "delete"} {
		if v, ok := counts[k].(float64); ok {
			n += int(v)
		}
	}
	return n
}

func servicePID(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".runner", "data", "local", "dev", "app", "service.pid"))
	if err != nil {
		t.Fatalf("no pid file: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(b), ") Z ")
}

func TestLocalLifecycle(t *testing.T) {
	dir := deployable(t)

	up := ok(t, dir, "--non-interactive", "up", "--yes")
	m := urlLine.FindStringSubmatch(up.Stdout)
	if m == nil {
		t.Fatalf("up printed no URL:\n%s", up.Stdout)
	}
	url := m[1]
	if code, body := get(t, dir, url, "", ""); code != 200 || !strings.Contains(body, "ok") {
		t.Fatalf("GET / = %d %q", code, body)
	}
	if code, _ := get(t, dir, url+"admin", "", ""); code != 401 {
		t.Fatalf("GET /admin without auth = %d", code)
	}
	if code, _ := get(t, dir, url+"admin", "admin", adminPassword); code != 200 {
		t.Fatalf("GET /admin with the admin password = %d", code)
	}
	pid := servicePID(t, dir)
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if !strings.Contains(string(cmdline), dir) {
		t.Fatalf("the service's command line does not name the workspace: %q", cmdline)
	}

	// A preview right after up changes nothing.
	for project, row := range summary(t, ok(t, dir, "--json", "preview").Stdout) {
		if changes(row) != 0 {
			t.Fatalf("preview after up plans changes in %s: %v", project, row["counts"])
		}
	}

	// With --no-durations, one project at a time and one step at a time,
	// runs print the same bytes (with steps side by side, those of the
	// ingress project were listed in the order they happened to finish).
	reproducible := []string{"--non-interactive", "preview", "--no-durations", "--parallel", "1", "--step-parallel", "1"}
	first := ok(t, dir, reproducible...).Stdout
	for range 5 {
		if again := ok(t, dir, reproducible...).Stdout; again != first {
			t.Fatalf("two previews with --no-durations differ:\n%s\n---\n%s", first, again)
		}
	}

	// The service dies; refresh notices, up brings it back on the same port.
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := 0; alive(pid) && i < 100; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	rows := summary(t, ok(t, dir, "--json", "refresh", "--yes").Stdout)
	if counts, _ := rows["app"]["counts"].(map[string]any); counts["delete"] != 1.0 {
		t.Fatalf("refresh did not notice the dead service: %v", rows["app"])
	}
	up = ok(t, dir, "--non-interactive", "up", "--yes")
	if m2 := urlLine.FindStringSubmatch(up.Stdout); m2 == nil || m2[1] != url {
		t.Fatalf("up after refresh: the URL changed or is missing:\n%s", up.Stdout)
	}
	if code, _ := get(t, dir, url, "", ""); code != 200 {
		t.Fatalf("the service did not come back: %d", code)
	}
	pid = servicePID(t, dir)

	// up --refresh notices a dead service by itself.
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := 0; alive(pid) && i < 100; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	ok(t, dir, "--non-interactive", "up", "--refresh", "--yes")
	if code, _ := get(t, dir, url, "", ""); code != 200 {
		t.Fatalf("up --refresh did not bring the service back: %d", code)
	}
	pid = servicePID(t, dir)

	// Destroy leaves no process and no file behind.
	ok(t, dir, "--non-interactive", "destroy", "--yes")
	for i := 0; alive(pid) && i < 100; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		t.Fatal("the service still runs after destroy")
	}
	if _, err := os.Stat(filepath.Join(dir, ".runner", "data")); !os.IsNotExist(err) {
		var left []string
		_ = filepath.Walk(filepath.Join(dir, ".runner", "data"), func(p string, _ os.FileInfo, _ error) error {
			left = append(left, p)
			return nil
		})
		t.Fatalf("destroy left files behind: %v", left)
	}
}

func TestFailureSkipsDependentsAndDestroyCanBeRerun(t *testing.T) {
	dir := deployable(t)
	// A directory where ingress writes its certificate makes ingress fail.
	block := filepath.Join(dir, ".runner", "data", "local", "dev", "ingress", "tls.crt")
	if err := os.MkdirAll(filepath.Join(block, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", nil, "--json", "up", "--yes")
	if r.Code != 1 {
		t.Fatalf("up with a failing project exited %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	rows := summary(t, r.Stdout)
	want := map[string]string{"ca": "succeeded", "secrets": "succeeded", "network": "succeeded", "ingress": "failed", "app": "skipped"}
	for p, res := range want {
		if rows[p]["result"] != res {
			t.Errorf("%s: %v, want %s", p, rows[p]["result"], res)
		}
	}
	if e, _ := rows["ingress"]["error"].(string); !strings.Contains(e, "tls.crt") {
		t.Errorf("ingress's error does not name the file: %q", e)
	}
	if e, _ := rows["app"]["error"].(string); e != "skipped: ingress failed" {
		t.Errorf("app's error %q", e)
	}
	plain := run(t, dir, "", nil, "up", "--yes")
	if !strings.Contains(plain.Stdout, "Failures:") || !strings.Contains(plain.Stdout, "ingress:") {
		t.Errorf("the summary does not name the failure:\n%s", plain.Stdout)
	}

	// Cleared, up converges.
	if err := os.RemoveAll(block); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, "--non-interactive", "up", "--yes")

	// A delete that fails half-way through destroy.
	key := filepath.Join(dir, ".runner", "data", "local", "dev", "ingress", "tls.key")
	if err := os.Remove(key); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(key, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = run(t, dir, "", nil, "--json", "destroy", "--yes")
	if r.Code != 1 {
		t.Fatalf("destroy with a failing delete exited %d", r.Code)
	}
	rows = summary(t, r.Stdout)
	want = map[string]string{"app": "succeeded", "secrets": "succeeded", "ingress": "failed", "ca": "skipped", "network": "skipped"}
	for p, res := range want {
		if rows[p]["result"] != res {
			t.Errorf("first destroy: %s: %v, want %s", p, rows[p]["result"], res)
		}
	}
	if err := os.RemoveAll(key); err != nil {
		t.Fatal(err)
	}
	rows = summary(t, ok(t, dir, "--json", "destroy", "--yes").Stdout)
	for _, p := range []string{"app", "secrets"} {
		if changes(rows[p]) != 0 {
			t.Errorf("the second destroy did work again on %s: %v", p, rows[p]["counts"])
		}
	}
	for _, p := range []string{"ingress", "ca", "network"} {
		if rows[p]["result"] != "succeeded" || changes(rows[p]) == 0 {
			t.Errorf("the second destroy did not finish %s: %v", p, rows[p])
		}
	}
}
