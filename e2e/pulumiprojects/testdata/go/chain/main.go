// Command chain is a Pulumi Go program of three testprov resources in a
// chain, for runner's e2e tests: a secret config value flows through it
// and it exports stack outputs. Config failAt=c makes the program fail
// after a and b were registered.
package main

import (
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// Thing is a testprov:index:Thing; its outputs echo its inputs.
type Thing struct {
	pulumi.CustomResourceState
	Value  pulumi.StringOutput `pulumi:"value"`
	Secret pulumi.StringOutput `pulumi:"secret"`
}

func thing(ctx *pulumi.Context, name string, props pulumi.Map, opts ...pulumi.ResourceOption) (*Thing, error) {
	var t Thing
	err := ctx.RegisterResource("testprov:index:Thing", name, props, &t, opts...)
	return &t, err
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		prefix := cfg.Get("prefix")
		if prefix == "" {
			prefix = "p"
		}
		token := cfg.RequireSecret("token")
		a, err := thing(ctx, "a", pulumi.Map{"value": pulumi.String(prefix + "-a")})
		if err != nil {
			return err
		}
		b, err := thing(ctx, "b", pulumi.Map{"value": a.Value.ApplyT(func(v string) string { return v + "-b" }), "secret": token})
		if err != nil {
			return err
		}
		if cfg.Get("failAt") == "c" {
			_ = b.Value.ApplyT(func(string) error { return nil })
			return fmt.Errorf("failing on purpose before c")
		}
		c, err := thing(ctx, "c", pulumi.Map{"value": b.Value.ApplyT(func(v string) string { return v + "-c" })}, pulumi.DependsOn([]pulumi.Resource{b}))
		if err != nil {
			return err
		}
		ctx.Export("last", c.Value)
		ctx.Export("token", b.Secret)
		return nil
	})
}
