// The test plugin's multi-language component Pair, declared by its type
// token as a generated SDK declares a remote component: the plugin's
// Construct registers it and its two child Things.
import * as pulumi from "@pulumi/pulumi";

class Pair extends pulumi.ComponentResource {
    public readonly a!: pulumi.Output<string>;
    public readonly b!: pulumi.Output<string>;
    constructor(name: string, args: { value: pulumi.Input<string> }, opts?: pulumi.ComponentResourceOptions) {
        super("testprov:index:Pair", name, { value: args.value, a: undefined, b: undefined }, opts, true);
    }
}

const cfg = new pulumi.Config();
const pair = new Pair("pair", { value: cfg.get("value") ?? "one" });
export const a = pair.a;
export const b = pair.b;

// The Pair's method greet, called as a generated SDK calls a component's
// method.
const greeting = pulumi.runtime.call<{ message: string }>("testprov:index:Pair/greet", { __self__: pair, greeting: "hi" }, pair);
export const message = greeting.apply(r => r.message);
