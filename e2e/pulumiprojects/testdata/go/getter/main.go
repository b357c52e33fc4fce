// Command getter reads (ctx.ReadResource) the Thing whose ID the maker
// project exports, by stack reference.
package main

import "github.com/pulumi/pulumi/sdk/v3/go/pulumi"

// Thing is a testprov:index:Thing.
type Thing struct {
	pulumi.CustomResourceState
	Value pulumi.StringOutput `pulumi:"value"`
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		ref, err := pulumi.NewStackReference(ctx, "organization/maker/"+ctx.Stack(), nil)
		if err != nil {
			return err
		}
		id := ref.GetStringOutput(pulumi.String("id")).ApplyT(func(s string) pulumi.ID { return pulumi.ID(s) }).(pulumi.IDOutput)
		var t Thing
		if err := ctx.ReadResource("testprov:index:Thing", "seen", id, nil, &t); err != nil {
			return err
		}
		ctx.Export("seen", t.Value)
		return nil
	})
}
