// Command reader reads the outputs of the chain project (config source:
// another project's name) by stack reference.
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// Thing is a testprov:index:Thing.
type Thing struct {
	pulumi.CustomResourceState
	Value pulumi.StringOutput `pulumi:"value"`
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		source := config.New(ctx, "").Get("source")
		if source == "" {
			source = "chain"
		}
		ref, err := pulumi.NewStackReference(ctx, "organization/"+source+"/"+ctx.Stack(), nil)
		if err != nil {
			return err
		}
		var t Thing
		if err := ctx.RegisterResource("testprov:index:Thing", "r", pulumi.Map{"value": ref.GetStringOutput(pulumi.String("last"))}, &t); err != nil {
			return err
		}
		ctx.Export("got", t.Value)
		ctx.Export("token", ref.GetOutput(pulumi.String("token")))
		return nil
	})
}
