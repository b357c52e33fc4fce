// Command pair is a Pulumi Go program using the test plugin's
// multi-language component Pair, declared by its type token as a
// generated SDK declares a remote component, for runner's e2e tests.
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// Pair is a testprov:index:Pair; its provider's Construct makes two
// child Things.
type Pair struct {
	pulumi.ResourceState
	A pulumi.StringOutput `pulumi:"a"`
	B pulumi.StringOutput `pulumi:"b"`
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		value := config.New(ctx, "").Get("value")
		if value == "" {
			value = "one"
		}
		var p Pair
		if err := ctx.RegisterRemoteComponentResource("testprov:index:Pair", "pair", pulumi.Map{"value": pulumi.String(value)}, &p); err != nil {
			return err
		}
		ctx.Export("a", p.A)
		ctx.Export("b", p.B)
		return nil
	})
}
