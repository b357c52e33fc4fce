// Command refs is a Pulumi Go program for runner's e2e tests: a resource
// passed as another's input (a resource reference), and the test plugin's
// component Pair with its method greet called with the Pair as __self__
// and an output of another resource as its greeting (an output value);
// what the plugin saw is exported.
package main

import (
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// Thing is a testprov:index:Thing; its outputs echo its inputs.
type Thing struct {
	pulumi.CustomResourceState
	Value pulumi.StringOutput `pulumi:"value"`
}

// Ref is a testprov:index:Ref: its outputs say whether its target came as
// a reference (targetUrn) and which ID it names (targetId).
type Ref struct {
	pulumi.CustomResourceState
	TargetUrn pulumi.StringPtrOutput `pulumi:"targetUrn"`
	TargetID  pulumi.StringOutput    `pulumi:"targetId"`
}

// Pair is a testprov:index:Pair, a remote component.
type Pair struct {
	pulumi.ResourceState
	A         pulumi.StringOutput `pulumi:"a"`
	ValueKind pulumi.StringOutput `pulumi:"valueKind"`
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		value, key := cfg.Get("value"), cfg.Get("key")
		if value == "" {
			value = "hi"
		}
		if key == "" {
			key = "k1"
		}
		var t Thing
		if err := ctx.RegisterResource("testprov:index:Thing", "t", pulumi.Map{"value": pulumi.String(value), "key": pulumi.String(key)}, &t); err != nil {
			return err
		}
		var r Ref
		if err := ctx.RegisterResource("testprov:index:Ref", "r", pulumi.Map{"target": pulumi.NewResourceInput(&t)}, &r); err != nil {
			return err
		}
		ctx.Export("tUrn", t.URN())
		ctx.Export("tId", t.ID())
		ctx.Export("targetUrn", r.TargetUrn)
		ctx.Export("targetId", r.TargetID)
		var p Pair
		if err := ctx.RegisterRemoteComponentResource("testprov:index:Pair", "pair", pulumi.Map{"value": t.Value}, &p); err != nil {
			return err
		}
		ctx.Export("a", p.A)
		ctx.Export("valueKind", p.ValueKind)
		g, err := ctx.Call("testprov:index:Pair/greet", pulumi.Map{"greeting": t.Value}, pulumi.AnyOutput{}, &p)
		if err != nil {
			return err
		}
		field := func(k string) pulumi.StringOutput {
			return g.(pulumi.AnyOutput).ApplyT(func(v any) string {
				m, _ := v.(map[string]any)
				switch x := m[k].(type) {
				case string:
					return x
				case []any:
					var s []string
					for _, e := range x {
						s = append(s, e.(string))
					}
					return strings.Join(s, ",")
				}
				return ""
			}).(pulumi.StringOutput)
		}
		for _, k := range []string{"message", "selfKind", "greetingKind", "greetingDeps"} {
			ctx.Export(k, field(k))
		}
		return nil
	})
}
