package engine_test

import (
	"context"
	"fmt"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/pluginhost/wire"
	"github.com/runnerhq/runner/engine/resource"
)

// absentSDK is a hosted program whose SDK reads a stack output left out of
// a preview's stack reference as unknown (source.UnknownsAbsent), as
// Pulumi's Go SDK does.
type absentSDK struct{ hostedFunc }

func (absentSDK) UnknownsAbsent() bool { return true }

// TestPreviewStackReferenceUnknowns checks the stack reference a preview
// answers when the upstream's planned outputs hold a value not known yet:
// kept unknown (TypeScript and YAML read it so), or left out for a program
// whose SDK reads an absent output as unknown and an unknown one as
// absent (Go); known outputs and secrets are answered either way.
func TestPreviewStackReferenceUnknowns(t *testing.T) {
	planned := resource.PropertyMap{"id": resource.Computed{}, "nested": map[string]any{"a": resource.Computed{}},
		"plain": "known", "token": resource.Secret{Element: "s3cr3t"}}
	tests := []struct {
		name   string
		absent bool
		want   []string // the stack outputs answered
	}{
		{"kept unknown", false, []string{"id", "nested", "plain", "token"}},
		{"left out", true, []string{"plain", "token"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newHostedEnv(t)
			e.opts.References = func(project string) (resource.PropertyMap, bool) { return planned, project == "up" }
			var got resource.PropertyMap
			read := hostedFunc(func(ctx context.Context, c *client) error {
				resp, err := c.mon.ReadResource(ctx, &pulumirpc.ReadResourceRequest{Type: "pulumi:pulumi:StackReference", Name: "up/dev",
					Properties: mustStruct(t, resource.PropertyMap{"name": "up/dev"}), AcceptSecrets: true})
				if err != nil {
					return err
				}
				outs, err := wire.Unmarshal(resp.GetProperties(), wire.Options{KeepUnknowns: true, KeepSecrets: true})
				if m, ok := outs["outputs"].(map[string]any); ok {
					got = m
				} else if err == nil {
					err = fmt.Errorf("the outputs are %v", outs["outputs"])
				}
				return err
			})
			h := e.opts
			h.Hosted = read
			if tt.absent {
				h.Hosted = absentSDK{read}
			}
			if _, err := engine.Preview(t.Context(), h, nil); err != nil {
				t.Fatal(err)
			}
			if keys := got.SortedKeys(); fmt.Sprint(keys) != fmt.Sprint(tt.want) {
				t.Fatalf("the stack reference answers %v, want the outputs %v", got, tt.want)
			}
			if _, ok := got["token"].(resource.Secret); !ok || got["plain"] != "known" {
				t.Errorf("the known outputs are answered as %v", got)
			}
			if _, unknown := got["id"].(resource.Computed); !tt.absent && !unknown {
				t.Errorf("id is answered as %v, want unknown", got["id"])
			}
		})
	}
}
