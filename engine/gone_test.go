package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
)

// TestGoneResourceSuggestsRefresh: an update or a delete that fails
// because the resource's real object was removed outside runner says so
// and suggests `runner refresh`, whether the plugin says it (ErrGone) or a
// read-back finds the object gone; a failure of a resource that still
// exists gets no such hint.
func TestGoneResourceSuggestsRefresh(t *testing.T) {
	for _, tc := range []struct {
		name      string
		forget    bool // the object is gone
		pluginErr error
		hint      bool
	}{
		{"plugin says it is gone", false, fmt.Errorf("open /x: %w", resource.ErrGone), true},
		{"read back finds it gone", true, errors.New("no such file or directory"), true},
		{"still there", false, errors.New("permission denied"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.mustUp(resources(map[string]engine.Inputs{"a": {"v": 1}, "b": {"v": 1}}))
			if tc.forget {
				e.plugin.Forget(urn("a"))
				e.plugin.Forget(urn("b"))
			}
			e.plugin.OnUpdate = func(context.Context, resource.UpdateRequest) (resource.UpdateResponse, error) {
				return resource.UpdateResponse{}, tc.pluginErr
			}
			e.plugin.OnDelete = func(context.Context, resource.DeleteRequest) error { return tc.pluginErr }
			_, upErr := e.up(resources(map[string]engine.Inputs{"a": {"v": 2}}))
			_, delErr := e.up(resources(map[string]engine.Inputs{}))
			for what, err := range map[string]error{"update": upErr, "delete": delErr} {
				if err == nil {
					t.Fatalf("%s succeeded", what)
				}
				hinted := strings.Contains(err.Error(), "runner refresh") && errors.Is(err, resource.ErrGone)
				if hinted != tc.hint {
					t.Errorf("%s error (hint %v, want %v): %v", what, hinted, tc.hint, err)
				}
			}
		})
	}
}
