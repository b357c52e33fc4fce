package e2e

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// planFileSteps reads a plan file written by `preview --out` and returns
// its steps other than same as changingSteps spells the events ("project
// URN op"; a replacement as the two steps up reports for it), sorted.
func planFileSteps(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pf struct {
		Version  int    `json:"version"`
		Stack    string `json:"stack"`
		Provider string `json:"provider"`
		Projects []struct {
			Project string `json:"project"`
			Steps   []struct {
				Op  string `json:"op"`
				URN string `json:"urn"`
			} `json:"steps"`
		} `json:"projects"`
	}
	if err := json.Unmarshal(data, &pf); err != nil {
		t.Fatalf("the plan file is not JSON: %v", err)
	}
	if pf.Version != 1 || pf.Stack != "dev" || pf.Provider != "local" || len(pf.Projects) == 0 {
		t.Fatalf("the plan file says version %d, stack %q, provider %q, %d projects", pf.Version, pf.Stack, pf.Provider, len(pf.Projects))
	}
	var steps []string
	for _, p := range pf.Projects {
		for _, s := range p.Steps {
			switch s.Op {
			case "same":
			case "replace":
				steps = append(steps, p.Project+" "+s.URN+" create-replacement", p.Project+" "+s.URN+" delete-replaced")
			default:
				steps = append(steps, p.Project+" "+s.URN+" "+s.Op)
			}
		}
	}
	sort.Strings(steps)
	return steps
}

// freePort returns a TCP port that is free now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// stateFiles returns every file runner keeps for the dev stack's state,
// by path, with its bytes.
func stateFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, root := range []string{filepath.Join(dir, ".runner", ".pulumi"), runnerStackDir(dir, "dev")} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if rel, _ := filepath.Rel(root, p); !strings.Contains(rel, "dev") && !strings.HasPrefix(root, runnerStackDir(dir, "dev")) {
				return nil // another stack's
			}
			data, err := os.ReadFile(p)
			files[p] = string(data)
			return err
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	return files
}

// TestUpPlanExecutesThePlannedSteps: `preview --out` on a new stack, then
// after a config change whose new port flows downstream; each time `up
// --plan` does exactly the steps in the file.
func TestUpPlanExecutesThePlannedSteps(t *testing.T) {
	dir := deployable(t)
	plan := filepath.Join(dir, "plan.json")
	for round, change := range []func(){
		func() {},
		func() { ok(t, dir, "-s", "dev", "config", "set", "app:port", freePort(t)) },
	} {
		change()
		ok(t, dir, "-s", "dev", "--non-interactive", "preview", "--out", plan)
		if st, err := os.Stat(plan); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("round %d: the plan file: %v, mode %v", round, err, st.Mode())
		}
		planned := planFileSteps(t, plan)
		if len(planned) == 0 {
			t.Fatalf("round %d: the plan has no step to take", round)
		}
		up := changingSteps(t, ok(t, dir, "--json", "-s", "dev", "--non-interactive", "up", "--plan", plan).Stdout)
		if strings.Join(planned, "\n") != strings.Join(up, "\n") {
			t.Fatalf("round %d: the plan has %d steps:\n  %s\nup --plan took %d:\n  %s", round, len(planned),
				strings.Join(planned, "\n  "), len(up), strings.Join(up, "\n  "))
		}
	}
}

// TestUpPlanRefusesAStalePlan: a plan made before another up, or before a
// config change, is refused with the reason, exit 3, and the state is left
// byte for byte as it was.
func TestUpPlanRefusesAStalePlan(t *testing.T) {
	tests := []struct {
		name    string
		deploy  bool // up before the plan is made
		between []string
		reason  string
	}{
		{name: "another up in between", between: []string{"--non-interactive", "up", "--yes"},
			reason: "changed since the plan was made (an operation ran on stack dev since"},
		{name: "a config change in between", deploy: true, between: []string{"config", "set", "app:port", "PORT"},
			reason: "the stack config changed since the plan was made"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := deployable(t)
			if tt.deploy {
				ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
			}
			plan := filepath.Join(dir, "plan.json")
			ok(t, dir, "-s", "dev", "--non-interactive", "preview", "--out", plan)
			between := append([]string{"-s", "dev"}, tt.between...)
			for i, a := range between {
				if a == "PORT" {
					between[i] = freePort(t)
				}
			}
			ok(t, dir, between...)
			before := stateFiles(t, dir)
			r := run(t, dir, "", nil, "-s", "dev", "--non-interactive", "up", "--plan", plan)
			if r.Code != 3 || !strings.Contains(r.Stderr, tt.reason) || !strings.Contains(r.Stderr, "nothing was changed") {
				t.Fatalf("up --plan of a stale plan: exit %d, want 3 saying %q\nstdout:\n%s\nstderr:\n%s", r.Code, tt.reason, r.Stdout, r.Stderr)
			}
			after := stateFiles(t, dir)
			if len(before) == 0 || len(after) != len(before) {
				t.Fatalf("the state had %d files, now %d", len(before), len(after))
			}
			for p, data := range before {
				if after[p] != data {
					t.Errorf("the refused up changed %s", p)
				}
			}
		})
	}
}

// TestPlanFileHoldsNoPlaintextSecret makes a plan whose steps carry the
// admin password and secret outputs (the CA's key, the session key), and
// looks for the plaintext of each in the plan file.
func TestPlanFileHoldsNoPlaintextSecret(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
	ok(t, dir, "-s", "dev", "config", "set", "app:port", freePort(t))
	plan := filepath.Join(dir, "plan.json")
	ok(t, dir, "-s", "dev", "--non-interactive", "preview", "--out", plan)
	data, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	secrets, places := secretPlaintexts(t, dir)
	if len(secrets) == 0 || len(places) == 0 {
		t.Fatal("the state holds no secret to look for")
	}
	secrets[adminPassword] = append(secrets[adminPassword], "config app:adminPassword")
	for plain, where := range secrets {
		if strings.Contains(string(data), plain) {
			t.Errorf("the plan file holds the plaintext of the secret at %s", strings.Join(where, ", "))
		}
	}
	if !strings.Contains(string(data), `"ciphertext"`) {
		t.Errorf("the plan file holds no encrypted secret; its steps should carry the admin password")
	}
}

// TestUpPlanFlagErrors: a missing or malformed plan file, a plan of
// another stack, and flags that cannot go with --plan.
func TestUpPlanFlagErrors(t *testing.T) {
	dir := deployable(t)
	plan := filepath.Join(dir, "plan.json")
	ok(t, dir, "-s", "dev", "--non-interactive", "preview", "--out", plan)
	bad, prod := filepath.Join(dir, "bad.json"), filepath.Join(dir, "prod.json")
	data, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{bad: "{\n  \"version\": 1,\n  oops\n}", prod: strings.Replace(string(data), `"stack": "dev"`, `"stack": "prod"`, 1)} {
		if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-s", "dev", "up", "--plan", filepath.Join(dir, "none.json")}, 2, "none.json: the file does not exist"},
		{[]string{"-s", "dev", "up", "--plan", bad}, 3, "bad.json is not a plan file (line 3:"},
		{[]string{"-s", "dev", "up", "--plan", plan, "--target", "app"}, 2, "--plan cannot go with --target"},
		{[]string{"-s", "dev", "up", "--plan", plan, "--refresh"}, 2, "--plan cannot go with --refresh"},
		{[]string{"-s", "dev", "up", "--plan", prod}, 3, "is a plan of stack prod, not of stack dev"},
		{[]string{"-s", "dev", "preview", "--out", filepath.Join(dir, "no", "plan.json")}, 2, "does not exist"},
	} {
		r := run(t, dir, "", nil, append([]string{"--non-interactive"}, tc.args...)...)
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.want) {
			t.Errorf("runner %s: exit %d, want %d saying %q\n%s", strings.Join(tc.args, " "), r.Code, tc.code, tc.want, r.Stderr)
		}
	}
	if files := stateFiles(t, dir); len(files) != 0 {
		t.Errorf("the refused runs left state: %v", files)
	}
}

// TestUpOnATerminalExecutesThePlanItShowed: up on a terminal shows a plan
// and asks; when another up changes the state before the answer, the
// confirmed up refuses (exit 3, nothing more changed) instead of planning
// again and doing what was never shown.
func TestUpOnATerminalExecutesThePlanItShowed(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
	ok(t, dir, "-s", "dev", "config", "set", "app:port", freePort(t))
	p := inTmux(t, dir, nil, nil, "-s", "dev", "up")
	p.WaitFor("Do you want to perform this update of stack dev?", 1)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network")
	before := stateFiles(t, dir)
	p.Reply("Do you want to perform this update", "y")
	code, screen := p.Exit()
	if code != 3 || !strings.Contains(screen, "state of project network changed since the plan was made") {
		t.Fatalf("the confirmed up after a state change: exit %d, want 3 naming network\n%s", code, screen)
	}
	for path, data := range stateFiles(t, dir) {
		if before[path] != data {
			t.Errorf("the refused up changed %s", path)
		}
	}
}
