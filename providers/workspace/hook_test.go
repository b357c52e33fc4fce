package workspace

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
)

// TestHookEnvironment: the command gets each output as RUNNER_OUTPUT_<NAME>,
// secrets (and values holding one) left out.
func TestHookEnvironment(t *testing.T) {
	var log bytes.Buffer
	h := hook(t.TempDir(), `env | grep '^RUNNER_' | sort`)
	err := h(context.Background(), providers.HookInput{Project: "net", Runtime: providers.Runtime{Stack: "dev"}, Log: &log,
		Env: map[string]string{"PATH": "/usr/bin:/bin"},
		Outputs: resource.PropertyMap{
			"url": "http://x", "kube-config": map[string]any{"a": 1.0}, "token": resource.Secret{Element: "s3cret"},
			"nested": map[string]any{"k": resource.Secret{Element: "hidden"}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := "RUNNER_OUTPUT_KUBE_CONFIG={\"a\":1}\nRUNNER_OUTPUT_URL=http://x\nRUNNER_PROJECT=net\nRUNNER_STACK=dev\n"
	if log.String() != want {
		t.Errorf("the hook saw\n%s\nwant\n%s", log.String(), want)
	}
}

func TestHookFailure(t *testing.T) {
	var log bytes.Buffer
	err := hook(t.TempDir(), "echo oops; exit 4")(context.Background(), providers.HookInput{Log: &log})
	if err == nil || !strings.Contains(err.Error(), `the on_success command "echo oops; exit 4" failed`) || log.String() != "oops\n" {
		t.Errorf("error %v, log %q", err, log.String())
	}
}
