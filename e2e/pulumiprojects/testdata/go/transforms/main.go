// Command transforms uses transforms, served by runner as Pulumi's engine
// serves them: a stack transform suffixes every Thing's value with
// "+stack"; a component's transform suffixes its children's with "+box"
// (before the stack's) and marks them retainOnDelete; next's tag (plain's
// createdAt), unknown in a first preview, stays unknown through the
// transforms; an invoke transform points getResource at the Thing "plain".
package main

import (
	"context"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// Thing is a testprov:index:Thing; its outputs echo its inputs.
type Thing struct {
	pulumi.CustomResourceState
	Value     pulumi.StringOutput `pulumi:"value"`
	CreatedAt pulumi.StringOutput `pulumi:"createdAt"`
}

// Box is a component of one Thing.
type Box struct {
	pulumi.ResourceState
}

// suffix is a transform of Things that appends s to their value (and, with
// retain, marks them retainOnDelete).
func suffix(s string, retain bool) pulumi.ResourceTransform {
	return func(_ context.Context, a *pulumi.ResourceTransformArgs) *pulumi.ResourceTransformResult {
		v, ok := a.Props["value"].(pulumi.String)
		if a.Type != "testprov:index:Thing" || !ok {
			return nil
		}
		a.Props["value"] = pulumi.String(string(v) + s)
		if retain {
			a.Opts.RetainOnDelete = true
		}
		return &pulumi.ResourceTransformResult{Props: a.Props, Opts: a.Opts}
	}
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		pw := config.New(ctx, "").RequireSecret("pw")
		if err := ctx.RegisterStackTransform(suffix("+stack", false)); err != nil {
			return err
		}
		var plain Thing
		if err := ctx.RegisterResource("testprov:index:Thing", "plain", pulumi.Map{"value": pulumi.String("plain")}, &plain); err != nil {
			return err
		}
		var next Thing
		if err := ctx.RegisterResource("testprov:index:Thing", "next", pulumi.Map{"value": pulumi.String("next"), "tag": plain.CreatedAt}, &next); err != nil {
			return err
		}
		var box Box
		if err := ctx.RegisterComponentResource("my:index:Box", "box", &box, pulumi.Transforms([]pulumi.ResourceTransform{suffix("+box", true)})); err != nil {
			return err
		}
		var inner Thing
		if err := ctx.RegisterResource("testprov:index:Thing", "box-inner", pulumi.Map{"value": pulumi.String("inner"), "secret": pw}, &inner, pulumi.Parent(&box)); err != nil {
			return err
		}
		if err := ctx.RegisterResourceOutputs(&box, pulumi.Map{}); err != nil {
			return err
		}
		plainURN := "urn:pulumi:" + ctx.Stack() + "::" + ctx.Project() + "::testprov:index:Thing::plain"
		err := ctx.RegisterInvokeTransform(func(_ context.Context, a *pulumi.InvokeTransformArgs) *pulumi.InvokeTransformResult {
			if a.Token != "pulumi:pulumi:getResource" {
				return nil
			}
			a.Args["urn"] = pulumi.String(plainURN)
			return &pulumi.InvokeTransformResult{Args: a.Args, Opts: a.Opts}
		})
		if err != nil {
			return err
		}
		ctx.Export("plainValue", plain.Value)
		ctx.Export("found", plain.URN().ApplyT(func(pulumi.URN) (string, error) {
			var got struct {
				URN string `pulumi:"urn"`
			}
			err := ctx.Invoke("pulumi:pulumi:getResource", map[string]any{"urn": "nothing"}, &got)
			return got.URN, err
		}))
		return nil
	})
}
