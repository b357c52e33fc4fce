// A resource passed as another's input (a resource reference), and the
// test plugin's component Pair with its method greet called with the Pair
// as __self__ and an output of another resource as its greeting (an output
// value): what the plugin saw is exported.
import * as pulumi from "@pulumi/pulumi";
import { Thing } from "./thing";

// Ref is a testprov:index:Ref: its outputs say whether its target came as
// a reference (targetUrn) and which ID it names (targetId).
class Ref extends pulumi.CustomResource {
    public readonly targetUrn!: pulumi.Output<string | undefined>;
    public readonly targetId!: pulumi.Output<string>;
    constructor(name: string, args: { target: pulumi.Input<pulumi.Resource> }, opts?: pulumi.CustomResourceOptions) {
        super("testprov:index:Ref", name, { targetUrn: undefined, targetId: undefined, ...args }, opts);
    }
}

class Pair extends pulumi.ComponentResource {
    public readonly a!: pulumi.Output<string>;
    public readonly valueKind!: pulumi.Output<string>;
    constructor(name: string, args: { value: pulumi.Input<string> }, opts?: pulumi.ComponentResourceOptions) {
        super("testprov:index:Pair", name, { value: args.value, a: undefined, b: undefined, valueKind: undefined }, opts, true);
    }
}

const cfg = new pulumi.Config();
const t = new Thing("t", { value: cfg.get("value") ?? "hi", key: cfg.get("key") ?? "k1" });
const r = new Ref("r", { target: t });
export const thing = t;
export const tUrn = t.urn;
export const tId = t.id;
export const targetUrn = r.targetUrn;
export const targetId = r.targetId;

const pair = new Pair("pair", { value: t.value });
export const a = pair.a;
export const valueKind = pair.valueKind;
type Greeting = { message: string; selfKind: string; greetingKind: string; greetingDeps: string[] };
const g = pulumi.runtime.call<Greeting>("testprov:index:Pair/greet", { __self__: pair, greeting: t.value }, pair);
export const message = g.apply(x => x.message);
export const selfKind = g.apply(x => x.selfKind);
export const greetingKind = g.apply(x => x.greetingKind);
export const greetingDeps = g.apply(x => x.greetingDeps.join(","));
