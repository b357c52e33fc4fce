package command

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/resource"
)

var ctx = context.Background()

func TestCheckErrorsNameTheProperty(t *testing.T) {
	tests := []struct {
		news resource.PropertyMap
		want string
	}{
		{resource.PropertyMap{"create": 1.0}, `"create"`},
		{resource.PropertyMap{"delete": true}, `"delete"`},
		{resource.PropertyMap{"environment": "A=1"}, `"environment"`},
		{resource.PropertyMap{"environment": map[string]any{"A": 1.0}}, `"environment"`},
		{resource.PropertyMap{"interpreter": []any{}}, `"interpreter"`},
		{resource.PropertyMap{"interpreter": "sh"}, `"interpreter"`},
		{resource.PropertyMap{"triggers": "x"}, `"triggers"`},
		{resource.PropertyMap{"dir": 2.0}, `"dir"`},
	}
	for _, tt := range tests {
		_, err := Plugin{}.Check(ctx, resource.CheckRequest{Type: Type, News: tt.news})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%v) = %v, want an error naming %s", tt.news, err, tt.want)
		}
	}
	ok := resource.PropertyMap{"create": resource.Computed{}, "environment": resource.Computed{}, "triggers": []any{resource.Computed{}}}
	if _, err := (Plugin{}).Check(ctx, resource.CheckRequest{Type: Type, News: ok}); err != nil {
		t.Errorf("Check with unknowns: %v", err)
	}
}

func TestCreateUpdateDelete(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "deleted")
	in := resource.PropertyMap{
		"create":      "echo hi; echo warn >&2; echo \"$GREETING\"; pwd",
		"update":      "echo \"was: $PULUMI_COMMAND_STDOUT\" | head -1",
		"delete":      "printf '%s' \"$PULUMI_COMMAND_STDOUT\" > " + marker,
		"environment": map[string]any{"GREETING": "hello"},
		"dir":         dir,
	}
	cr, err := Plugin{}.Create(ctx, resource.CreateRequest{Type: Type, Inputs: in})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if want := "hi\nhello\n" + real; cr.Outputs["stdout"] != want {
		t.Errorf("stdout = %q, want %q", cr.Outputs["stdout"], want)
	}
	if cr.Outputs["stderr"] != "warn" || cr.ID == "" {
		t.Errorf("stderr = %q, ID %q", cr.Outputs["stderr"], cr.ID)
	}

	news := resource.PropertyMap{}
	for k, v := range in {
		news[k] = v
	}
	news["environment"] = map[string]any{"GREETING": "bye"}
	ur, err := Plugin{}.Update(ctx, resource.UpdateRequest{Type: Type, ID: cr.ID, OldInputs: in, OldOutputs: cr.Outputs, NewInputs: news})
	if err != nil {
		t.Fatal(err)
	}
	if ur.Outputs["stdout"] != "was: hi" {
		t.Errorf("update stdout = %q, want %q", ur.Outputs["stdout"], "was: hi")
	}

	if err := (Plugin{}).Delete(ctx, resource.DeleteRequest{Type: Type, ID: cr.ID, Inputs: news, Outputs: ur.Outputs}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(marker); err != nil || string(b) != "was: hi" {
		t.Errorf("delete marker = %q, %v", b, err)
	}
}

func TestStdinAndInterpreter(t *testing.T) {
	// The command line comes after the interpreter's arguments: here it is $0.
	in := resource.PropertyMap{"create": "ignored", "interpreter": []any{"/bin/sh", "-c", "tr a-z A-Z; echo \"$0\""}, "stdin": "abc\n"}
	cr, err := Plugin{}.Create(ctx, resource.CreateRequest{Type: Type, Inputs: in})
	if err != nil {
		t.Fatal(err)
	}
	if cr.Outputs["stdout"] != "ABC\nignored" {
		t.Errorf("stdout = %q", cr.Outputs["stdout"])
	}
}

func TestFailure(t *testing.T) {
	tests := []struct {
		name    string
		in      resource.PropertyMap
		want    []string
		notWant []string
	}{
		{"exit code and stderr", resource.PropertyMap{"create": "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo line$i >&2; done; exit 3"},
			[]string{"exit code 3", "line12", "line3\n"}, []string{"line2\n"}},
		{"secret input withholds output", resource.PropertyMap{"create": "echo \"$TOKEN\" >&2; exit 1", "environment": map[string]any{"TOKEN": resource.Secret{Element: "s3cr3t"}}},
			[]string{"exit code 1", "withheld"}, []string{"s3cr3t"}},
	}
	for _, tt := range tests {
		_, err := Plugin{}.Create(ctx, resource.CreateRequest{Type: Type, Inputs: tt.in})
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tt.name, err, w)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q holds %q", tt.name, err, w)
			}
		}
	}
}

func TestSecretOutputs(t *testing.T) {
	in := resource.PropertyMap{"create": "echo \"$TOKEN\"", "environment": map[string]any{"TOKEN": resource.Secret{Element: "s3cr3t"}}}
	for _, preview := range []bool{false, true} {
		cr, err := Plugin{}.Create(ctx, resource.CreateRequest{Type: Type, Inputs: in, Preview: preview})
		if err != nil {
			t.Fatal(err)
		}
		s, ok := cr.Outputs["stdout"].(resource.Secret)
		if !ok || !cr.Outputs.IsSecret("stderr") {
			t.Fatalf("preview %v: outputs not secret: %#v", preview, cr.Outputs)
		}
		if !preview && s.Element != "s3cr3t" {
			t.Errorf("stdout = %v", s.Element)
		}
	}
}

func TestPreviewRunsNothing(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	in := resource.PropertyMap{"create": "touch " + marker, "update": "touch " + marker}
	cr, err := Plugin{}.Create(ctx, resource.CreateRequest{Type: Type, Inputs: in, Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if !resource.ContainsComputed(cr.Outputs["stdout"]) || cr.Outputs["create"] != in["create"] {
		t.Errorf("preview outputs = %v", cr.Outputs)
	}
	ur, err := Plugin{}.Update(ctx, resource.UpdateRequest{Type: Type, ID: "x", OldInputs: in, NewInputs: in, Preview: true})
	if err != nil || !resource.ContainsComputed(ur.Outputs["stdout"]) {
		t.Errorf("preview update = %v, %v", ur.Outputs, err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("preview ran the command: %v", err)
	}
}

func TestCancelKillsProcessGroup(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "late")
	c, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Plugin{}.Create(c, resource.CreateRequest{Type: Type, Inputs: resource.PropertyMap{
		"create": "(sleep 2; touch " + marker + ") & sleep 30",
	}})
	if err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("error = %v, want stopped", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("cancel took %v", time.Since(start))
	}
	if testing.Short() {
		return
	}
	time.Sleep(2500 * time.Millisecond)
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("a child of the cancelled command ran on: %v", err)
	}
}

func TestDiff(t *testing.T) {
	base := resource.PropertyMap{"create": "a", "delete": "d", "triggers": []any{"1"}}
	with := func(kv ...any) resource.PropertyMap {
		m := resource.PropertyMap{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name     string
		olds     resource.PropertyMap
		news     resource.PropertyMap
		replaces []string
		changed  []string
	}{
		{"same", base, with(), nil, nil},
		{"create without update replaces", base, with("create", "b"), []string{"create"}, []string{"create"}},
		{"create with update updates", with("update", "u"), with("update", "u", "create", "b"), nil, []string{"create"}},
		{"triggers replace even with update", with("update", "u"), with("update", "u", "triggers", []any{"2"}), []string{"triggers"}, []string{"triggers"}},
		{"unknown trigger replaces", base, with("triggers", []any{resource.Computed{}}), []string{"triggers"}, []string{"triggers"}},
		{"delete alone updates", base, with("delete", "e"), nil, []string{"delete"}},
		{"environment without update replaces", base, with("environment", map[string]any{"A": "1"}), []string{"environment"}, []string{"environment"}},
	}
	for _, tt := range tests {
		d, err := Plugin{}.Diff(ctx, resource.DiffRequest{Type: Type, OldInputs: tt.olds, NewInputs: tt.news})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.Replaces, tt.replaces) || !slices.Equal(d.Changed, tt.changed) {
			t.Errorf("%s: Diff = %+v, want changed %v replaces %v", tt.name, d, tt.changed, tt.replaces)
		}
	}
}

func TestUpdateWithoutUpdateCommandKeepsOutputs(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	olds := resource.PropertyMap{"create": "touch " + marker, "delete": "true"}
	news := resource.PropertyMap{"create": "touch " + marker, "delete": "false"}
	ur, err := Plugin{}.Update(ctx, resource.UpdateRequest{Type: Type, ID: "x", OldInputs: olds, OldOutputs: resource.PropertyMap{"stdout": "o", "stderr": "e"}, NewInputs: news})
	if err != nil {
		t.Fatal(err)
	}
	if ur.Outputs["stdout"] != "o" || ur.Outputs["delete"] != "false" {
		t.Errorf("outputs = %v", ur.Outputs)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("update ran the create command")
	}
}

func TestRead(t *testing.T) {
	if _, err := (Plugin{}).Read(ctx, resource.ReadRequest{Type: Type}); err != resource.ErrNotRecognizable {
		t.Errorf("Read without ID = %v, want ErrNotRecognizable", err)
	}
	outs := resource.PropertyMap{"stdout": "x"}
	rr, err := Plugin{}.Read(ctx, resource.ReadRequest{Type: Type, ID: "i", Outputs: outs})
	if err != nil || rr.ID != "i" || rr.Outputs["stdout"] != "x" {
		t.Errorf("Read = %+v, %v", rr, err)
	}
}

// TestEnviron checks that a command starts from the plugin's Environ, not
// from runner's own process environment, then its declared variables.
func TestEnviron(t *testing.T) {
	t.Setenv("RUNNER_TEST_PROCESS_ONLY", "leaked")
	tests := []struct {
		name    string
		environ []string
		declare map[string]any
		want    string
	}{
		{"runner's own when unset", nil, nil, "leaked||"},
		{"the given environment only", []string{"PATH=" + os.Getenv("PATH"), "RUNNER_TEST_FILE=from-file"}, nil, "|from-file|"},
		{"declared over given", []string{"PATH=" + os.Getenv("PATH"), "RUNNER_TEST_FILE=from-file"},
			map[string]any{"RUNNER_TEST_DECLARED": "declared"}, "|from-file|declared"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := resource.PropertyMap{"create": `printf '%s|%s|%s' "$RUNNER_TEST_PROCESS_ONLY" "$RUNNER_TEST_FILE" "$RUNNER_TEST_DECLARED"`}
			if tt.declare != nil {
				in["environment"] = tt.declare
			}
			cr, err := Plugin{Environ: tt.environ}.Create(ctx, resource.CreateRequest{Type: Type, Inputs: in})
			if err != nil {
				t.Fatal(err)
			}
			if cr.Outputs["stdout"] != tt.want {
				t.Errorf("stdout = %q, want %q", cr.Outputs["stdout"], tt.want)
			}
		})
	}
}
