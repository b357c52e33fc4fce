// Transforms, served by runner as Pulumi's engine serves them: a stack
// transform suffixes every Thing's value with "+stack"; a component's
// transform suffixes its children's with "+box" (before the stack's) and
// marks them retainOnDelete; next's tag (plain's createdAt), unknown in a
// first preview, stays unknown through the transforms; an invoke transform
// points getResource at the Thing "plain". Config fail=<name> makes the
// stack transform throw for that resource (fail=getResource: the invoke
// transform), hang=<name> never answer.
import * as pulumi from "@pulumi/pulumi";
import { Thing } from "./thing";

const cfg = new pulumi.Config();
const fail = cfg.get("fail");
const hang = cfg.get("hang");
const pw = cfg.requireSecret("pw");

pulumi.runtime.registerResourceTransform(args => {
    if (args.name === fail) {
        throw new Error(`no ${fail} today`);
    }
    if (args.name === hang) {
        return new Promise<undefined>(() => {});
    }
    if (args.type !== "testprov:index:Thing" || typeof args.props.value !== "string") {
        return undefined;
    }
    return { props: { ...args.props, value: `${args.props.value}+stack` }, opts: args.opts };
});

class Box extends pulumi.ComponentResource {
    constructor(name: string, opts?: pulumi.ComponentResourceOptions) {
        super("my:index:Box", name, {}, opts);
        new Thing(`${name}-inner`, { value: "inner", secret: pw }, { parent: this });
        this.registerOutputs({});
    }
}

const plain = new Thing("plain", { value: "plain", createdAt: undefined }) as Thing & { createdAt: pulumi.Output<string> };
new Thing("next", { value: "next", tag: plain.createdAt });
new Box("box", {
    transforms: [args => args.type !== "testprov:index:Thing" ? undefined :
        { props: { ...args.props, value: `${args.props.value}+box` }, opts: { ...args.opts, retainOnDelete: true } }],
});

const plainURN = `urn:pulumi:${pulumi.getStack()}::${pulumi.getProject()}::testprov:index:Thing::plain`;
pulumi.runtime.registerInvokeTransform(args => {
    if (fail === "getResource") {
        throw new Error(`no ${fail} today`);
    }
    return args.token !== "pulumi:pulumi:getResource" ? undefined : { args: { ...args.args, urn: plainURN }, opts: args.opts };
});

export const plainValue = plain.value;
export const found = plain.urn.apply(() => pulumi.runtime.invoke("pulumi:pulumi:getResource", { urn: "nothing" }))
    .apply(r => r.urn);
