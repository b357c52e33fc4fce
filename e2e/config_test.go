package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// stackFile returns the path of the dev stack config of a workspace.
func stackFile(dir string) string {
	return filepath.Join(dir, "config", "pulumi", "Pulumi.dev.yaml")
}

// withStackFile makes a workspace whose dev stack config is data.
func withStackFile(t *testing.T, data []byte) string {
	t.Helper()
	dir := workspace(t)
	if err := os.MkdirAll(filepath.Dir(stackFile(dir)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stackFile(dir), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// testdata reads a file of testdata/config.
func testdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "config", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readStack returns the dev stack config of a workspace.
func readStack(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(stackFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantRun runs runner and fails the test unless it exits with code.
func wantRun(t *testing.T, dir, stdin string, env []string, code int, args ...string) Result {
	t.Helper()
	r := run(t, dir, stdin, env, args...)
	if r.Code != code {
		t.Fatalf("runner %s exited %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, code, r.Stdout, r.Stderr)
	}
	return r
}

// awsMissing are the aws questions without a default: what a fresh stack
// must be told, with whether each is a secret.
var awsMissing = []struct {
	key    string
	secret bool
}{
	{"vpc:azs", false},
	{"prometheus:adminpass", true},
	{"sirius:accounts_pwd", true},
	{"sirius:ledger_pwd", true},
	{"sirius:demo_login_pwd", true},
}

// setCommand is the line the missing-config listing gives for a key.
func setCommand(key string, secret bool) string {
	if secret {
		return "runner --stack dev config set --secret " + key + " <value>"
	}
	return "runner --stack dev config set " + key + " <value>"
}

func TestValidateListsEveryMissingKeyWithoutATerminal(t *testing.T) {
	dir := workspace(t)
	r := wantRun(t, dir, "", nil, 3, "-s", "dev", "-p", "aws", "validate")
	if !strings.Contains(r.Stderr, "stack dev is missing 5 config values in "+stackFile(dir)) {
		t.Errorf("the listing does not count the missing values or name the file:\n%s", r.Stderr)
	}
	for _, m := range awsMissing {
		if !strings.Contains(r.Stderr, setCommand(m.key, m.secret)) {
			t.Errorf("the listing does not give `%s`:\n%s", setCommand(m.key, m.secret), r.Stderr)
		}
	}
	for _, key := range []string{"aws:region", "aws:profile", "eks:k8s_version", "eks:min_size", "sirius:demo_login_user"} {
		if strings.Contains(r.Stderr, " "+key+" ") {
			t.Errorf("%s has a default or is optional but is listed as missing:\n%s", key, r.Stderr)
		}
	}
	if _, err := os.Stat(stackFile(dir)); !os.IsNotExist(err) {
		t.Errorf("a failed validate wrote the stack config (%v)", err)
	}

	// The same listing as one JSON error with --json.
	r = wantRun(t, dir, "", nil, 3, "--json", "-s", "dev", "-p", "aws", "validate")
	var e struct {
		Type     string `json:"type"`
		Message  string `json:"message"`
		ExitCode int    `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &e); err != nil || e.Type != "error" || e.ExitCode != 3 {
		t.Fatalf("--json validate: %v %q", err, r.Stdout)
	}
	for _, m := range awsMissing {
		if !strings.Contains(e.Message, setCommand(m.key, m.secret)) {
			t.Errorf("the JSON error does not name %s: %s", m.key, e.Message)
		}
	}

	// Each listed command works as given; defaults then fill the rest,
	// the region from AWS_DEFAULT_REGION.
	for _, m := range awsMissing {
		args := []string{"--stack", "dev", "config", "set"}
		value := "us-west-2a,us-west-2b"
		if m.secret {
			args = append(args, "--secret")
			value = "pw-for-" + m.key
		}
		wantRun(t, dir, "", nil, 0, append(args, m.key, value)...)
	}
	r = wantRun(t, dir, "", []string{"AWS_DEFAULT_REGION=us-west-2"}, 0, "--json", "-s", "dev", "-p", "aws", "validate")
	var rep struct {
		Valid     bool              `json:"valid"`
		Defaulted []string          `json:"defaulted"`
		Defaults  map[string]string `json:"defaults"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil || !rep.Valid {
		t.Fatalf("--json validate: %v %q", err, r.Stdout)
	}
	if got := strings.Join(rep.Defaulted, " "); got != "aws:region eks:k8s_version eks:instance_type eks:min_size eks:max_size eks:desired_capacity sirius:demo_login_user" {
		t.Errorf("defaulted %s", got)
	}
	if got := rep.Defaults["aws:region"]; got != "us-west-2" {
		t.Errorf("aws:region defaults to %q, want the AWS_DEFAULT_REGION us-west-2", got)
	}
	if strings.Contains(readStack(t, dir), "pw-for-") {
		t.Fatal("a secret is in the stack config in plain text")
	}
}

// TestMARAExampleStackConfig reads MARA's own example stack config with
// -p aws: its values answer the questions, the key it misspells is named
// with its line, its plain-text password is warned about, its Kubernetes
// version (1.21, long past EKS support) is refused with its line, and what
// it leaves out is listed: every problem in one run.
func TestMARAExampleStackConfig(t *testing.T) {
	example := maraExample(t)
	dir := withStackFile(t, example)
	file := stackFile(dir)

	r := wantRun(t, dir, "", nil, 3, "-s", "dev", "-p", "aws", "validate")
	for _, want := range []string{
		"stack dev is missing 3 config values",
		setCommand("sirius:accounts_pwd", true),
		setCommand("sirius:ledger_pwd", true),
		setCommand("sirius:demo_login_pwd", true),
		file + " line 328: prometheus.statsd_chart_version: a config key must be namespace:key (did you mean prometheus:statsd_chart_version?)",
		file + " line 333: prometheus:adminpass is a secret but is stored in plain text",
		file + ` line 122: eks:k8s_version is "1.21", which is not accepted: it must be a version EKS still supports`,
		// Its zones are not in its region: named with both keys and lines.
		file + ` line 113: vpc:azs "us-west-1a,us-west-1b" does not agree with aws:region (line 83): the zone us-west-1a is in region us-west-1, not in aws:region us-east-1`,
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("validate does not say %q:\n%s", want, r.Stderr)
		}
	}
	// Its values count as answered: the region, the zones (a YAML list),
	// the node group, the Grafana password.
	for _, key := range []string{"aws:region", "vpc:azs", "eks:instance_type", "eks:min_size", "eks:max_size", "eks:desired_capacity", "prometheus:adminpass", "sirius:demo_login_user"} {
		if strings.Contains(r.Stderr, " "+key+" <value>") {
			t.Errorf("%s is in MARA's example (or has a default) but is listed as missing:\n%s", key, r.Stderr)
		}
	}
	if string(example) != readStack(t, dir) {
		t.Fatal("a failed validate changed MARA's file")
	}

	for _, key := range []string{"sirius:accounts_pwd", "sirius:ledger_pwd", "sirius:demo_login_pwd"} {
		wantRun(t, dir, "pw-"+key+"\n", nil, 0, "-s", "dev", "config", "set", "--secret", key)
	}
	wantRun(t, dir, "", nil, 3, "-s", "dev", "-p", "aws", "validate") // the zones still disagree
	wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "set", "aws:region", "us-west-1")
	wantRun(t, dir, "", nil, 3, "-s", "dev", "-p", "aws", "validate") // 1.21 still refused
	wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "set", "eks:k8s_version", "1.34")
	r = wantRun(t, dir, "", nil, 0, "-s", "dev", "-p", "aws", "validate")
	if !strings.Contains(r.Stdout, "complete and valid for provider aws") {
		t.Errorf("validate: %s", r.Stdout)
	}
	// Saving added the encryptionsalt line above config:, and only it.
	for _, want := range []string{"warning: " + file + " line 329: prometheus.statsd_chart_version", "warning: " + file + " line 334: prometheus:adminpass"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("a passing validate does not warn %q:\n%s", want, r.Stderr)
		}
	}
	// The JSON report carries the same warnings.
	r = wantRun(t, dir, "", nil, 0, "--json", "-s", "dev", "-p", "aws", "validate")
	var rep struct {
		Valid    bool     `json:"valid"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil || !rep.Valid || len(rep.Warnings) != 2 {
		t.Fatalf("--json validate: %v %s", err, r.Stdout)
	}

	// MARA's values and comments are where they were; the new secrets
	// are encrypted.
	after := readStack(t, dir)
	for _, line := range strings.Split(string(example), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") && !strings.Contains(after, strings.TrimSpace(line)) {
			t.Errorf("the comment %q is gone", line)
		}
	}
	for _, want := range []string{"aws:region: us-west-1", "  vpc:azs:\n    - us-west-1a\n    - us-west-1b", "prometheus.statsd_chart_version: 0.6.2", "sirius:accounts_pwd:\n    secure: v1:"} {
		if !strings.Contains(after, want) {
			t.Errorf("the saved file lacks %q", want)
		}
	}
	if strings.Contains(after, "pw-sirius") {
		t.Fatal("a secret is in the stack config in plain text")
	}
}

func TestConfigSecrets(t *testing.T) {
	dir := workspace(t)
	const pw = "config-secret-5b2e"
	wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "set", "--secret", "app:adminPassword", pw)
	wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "set", "app:port", "8443")
	file := readStack(t, dir)
	if !strings.Contains(file, "app:adminPassword:\n    secure: v1:") || !strings.HasPrefix(file, "encryptionsalt: v1:") {
		t.Fatalf("the secret is not stored as secure: v1:...\n%s", file)
	}
	if strings.Contains(file, pw) {
		t.Fatal("the secret is in the stack config in plain text")
	}

	if got := wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "get", "app:adminPassword").Stdout; got != pw+"\n" {
		t.Errorf("config get of a secret printed %q, want its plaintext", got)
	}
	ls := wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "ls")
	if !regexp.MustCompile(`app:adminPassword\s+\[secret\]`).MatchString(ls.Stdout) || strings.Contains(ls.Stdout, pw) {
		t.Errorf("config ls shows a secret:\n%s", ls.Stdout)
	}
	if !regexp.MustCompile(`app:port\s+8443`).MatchString(ls.Stdout) {
		t.Errorf("config ls:\n%s", ls.Stdout)
	}
	shown := wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "ls", "--show-secrets")
	if !regexp.MustCompile(`app:adminPassword\s+` + pw).MatchString(shown.Stdout) {
		t.Errorf("config ls --show-secrets:\n%s", shown.Stdout)
	}

	// --json, before or after the subcommand.
	type item struct {
		Value  any  `json:"value"`
		Secret bool `json:"secret"`
	}
	for _, args := range [][]string{{"--json", "-s", "dev", "config", "ls"}, {"-s", "dev", "config", "ls", "--json"}} {
		var items map[string]item
		out := wantRun(t, dir, "", nil, 0, args...).Stdout
		if err := json.Unmarshal([]byte(out), &items); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		if it := items["app:adminPassword"]; it.Value != "[secret]" || !it.Secret {
			t.Errorf("%v: the secret is %#v", args, it)
		}
		if it := items["app:port"]; it.Value != "8443" || it.Secret {
			t.Errorf("%v: app:port is %#v", args, it)
		}
	}
	var items map[string]item
	out := wantRun(t, dir, "", nil, 0, "--json", "-s", "dev", "config", "ls", "--show-secrets").Stdout
	if err := json.Unmarshal([]byte(out), &items); err != nil || items["app:adminPassword"].Value != pw {
		t.Errorf("--json config ls --show-secrets: %v %s", err, out)
	}
	if got := wantRun(t, dir, "", nil, 0, "--json", "-s", "dev", "config", "get", "app:adminPassword").Stdout; got != `"`+pw+`"`+"\n" {
		t.Errorf("--json config get of a secret: %q", got)
	}

	// A wrong passphrase: exit 3, said so, for every command that decrypts.
	wrong := []string{"PULUMI_CONFIG_PASSPHRASE=not-the-passphrase"}
	for _, args := range [][]string{
		{"config", "get", "app:adminPassword"},
		{"config", "ls", "--show-secrets"},
		{"config", "set", "--secret", "app:other", "x"},
		{"-p", "local", "validate"},
	} {
		r := wantRun(t, dir, "", wrong, 3, append([]string{"-s", "dev"}, args...)...)
		if !strings.Contains(r.Stderr, "incorrect passphrase") || strings.Contains(r.Stdout+r.Stderr, pw) {
			t.Errorf("%v with a wrong passphrase:\n%s%s", args, r.Stdout, r.Stderr)
		}
	}
	r := wantRun(t, dir, "", wrong, 3, "--json", "-s", "dev", "config", "get", "app:adminPassword")
	if !strings.Contains(r.Stdout, `"exit_code":3`) || !strings.Contains(r.Stdout, "incorrect passphrase") {
		t.Errorf("--json with a wrong passphrase: %s", r.Stdout)
	}
	if readStack(t, dir) != file {
		t.Fatal("a command with the wrong passphrase changed the stack config")
	}
	// The passphrase from a file works the same as from the environment.
	pf := filepath.Join(t.TempDir(), "passphrase")
	if err := os.WriteFile(pf, []byte("e2e-passphrase\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = run(t, dir, "", []string{"PULUMI_CONFIG_PASSPHRASE=", "PULUMI_CONFIG_PASSPHRASE_FILE=" + pf}, "-s", "dev", "config", "get", "app:adminPassword")
	if r.Code != 0 || r.Stdout != pw+"\n" {
		t.Errorf("PULUMI_CONFIG_PASSPHRASE_FILE: exit %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	// Without any passphrase and no terminal: exit 3, naming the variable.
	r = wantRun(t, dir, "", []string{"PULUMI_CONFIG_PASSPHRASE="}, 3, "-s", "dev", "config", "get", "app:adminPassword")
	if !strings.Contains(r.Stderr, "PULUMI_CONFIG_PASSPHRASE") {
		t.Errorf("no passphrase: %s", r.Stderr)
	}
}

func TestConfigPathsAndStdin(t *testing.T) {
	dir := withStackFile(t, testdata(t, "handwritten.yaml"))
	cfg := func(args ...string) string {
		t.Helper()
		return wantRun(t, dir, "", nil, 0, append([]string{"-s", "dev", "config"}, args...)...).Stdout
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "--path", "app:data.nums[0]"}, "1\n"},
		{[]string{"get", "--path", `app:data["a.b"]`}, "dotted\n"},
		{[]string{"get", "app:data"}, `{"a.b":"dotted","nums":[1,2,3]}` + "\n"},
		{[]string{"get", "--json", "--path", "app:data.nums"}, "[1,2,3]\n"},
		{[]string{"get", "app:dbPassword"}, "db-password-in-testdata\n"},
	} {
		if got := cfg(tc.args...); got != tc.want {
			t.Errorf("config %s: %q, want %q", strings.Join(tc.args, " "), got, tc.want)
		}
	}

	cfg("set", "--path", "app:data.nums[0]", "42")
	cfg("set", "--path", `app:data["a.b"]`, "changed")
	cfg("set", "--path", "app:data.nums[3]", "4")
	cfg("set", "--path", "app:data.tls.enabled", "true")
	cfg("set", "--path", "--secret", "app:data.tls.key", "tls-key-secret")
	cfg("rm", "--path", "app:data.nums[1]")
	if got := cfg("get", "app:data"); got != `{"a.b":"changed","nums":[42,3,4],"tls":{"enabled":true,"key":"tls-key-secret"}}`+"\n" {
		t.Errorf("after --path set and rm, app:data is %s", got)
	}
	if ls := cfg("ls"); strings.Contains(ls, "tls-key-secret") || !strings.Contains(ls, `"key":"[secret]"`) {
		t.Errorf("config ls shows a secret inside a structured value:\n%s", ls)
	}
	// A path that runs into a scalar is a usage error.
	r := wantRun(t, dir, "", nil, 2, "-s", "dev", "config", "set", "--path", "app:port.x", "1")
	if !strings.Contains(r.Stderr, "not an object") {
		t.Errorf("--path into a scalar: %s", r.Stderr)
	}

	// A value piped in: `cat key.pub | runner config set app:publicKey`.
	pub := testdata(t, "key.pub")
	wantRun(t, dir, string(pub), nil, 0, "-s", "dev", "config", "set", "app:publicKey")
	if got := cfg("get", "app:publicKey"); got != string(pub) {
		t.Errorf("the piped-in key reads back as %q, want %q", got, pub)
	}
	wantRun(t, dir, "piped-secret\n", nil, 0, "-s", "dev", "config", "set", "--secret", "app:token")
	cfg("rm", "zeta:last")
	wantRun(t, dir, "", nil, 1, "-s", "dev", "config", "rm", "zeta:last")

	// Comments, key order and quoting of the hand-written file survive;
	// only the ciphertexts differ from the expected file.
	cfg("set", "app:port", "9443")
	got := readStack(t, dir)
	if strings.Contains(got, "piped-secret") || strings.Contains(got, "tls-key-secret") {
		t.Fatal("a secret is in the stack config in plain text")
	}
	// The untouched secret keeps its ciphertext; new ones vary.
	if !strings.Contains(got, "secure: v1:fqcV2o2rQs0MsXq9:") {
		t.Error("the untouched secret was re-encrypted")
	}
	ct := regexp.MustCompile(`secure: v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+`)
	want := string(testdata(t, "handwritten.after.yaml"))
	if ct.ReplaceAllString(got, "secure: CIPHERTEXT") != ct.ReplaceAllString(want, "secure: CIPHERTEXT") {
		t.Errorf("the stack config after set and rm:\n%s\nwant (ciphertexts aside):\n%s", got, want)
	}
	if cfg("get", "app:dbPassword") != "db-password-in-testdata\n" {
		t.Error("an untouched secret no longer decrypts")
	}
}

func TestMalformedStackConfigIsNamedAndLeftAlone(t *testing.T) {
	body := testdata(t, "malformed.yaml")
	dir := withStackFile(t, body)
	where := stackFile(dir) + ":5: the YAML is malformed"
	for _, args := range [][]string{
		{"config", "ls"},
		{"config", "get", "app:port"},
		{"config", "set", "app:port", "9000"},
		{"config", "set", "--secret", "app:pw", "x"},
		{"config", "rm", "app:name"},
		{"validate"},
		{"preview"},
	} {
		r := wantRun(t, dir, "", nil, 3, append([]string{"-s", "dev"}, args...)...)
		if !strings.Contains(r.Stderr, where) {
			t.Errorf("%v does not name the file and line %q:\n%s", args, where, r.Stderr)
		}
		if got := readStack(t, dir); got != string(body) {
			t.Fatalf("%v changed the malformed file:\n%s", args, got)
		}
	}
	r := wantRun(t, dir, "", nil, 3, "--json", "-s", "dev", "config", "ls")
	if !strings.Contains(r.Stdout, `"exit_code":3`) || !strings.Contains(r.Stdout, ":5: the YAML is malformed") {
		t.Errorf("--json config ls of a malformed file: %s", r.Stdout)
	}
}
