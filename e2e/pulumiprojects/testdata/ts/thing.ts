import * as pulumi from "@pulumi/pulumi";

// Thing is a testprov:index:Thing, declared by its type token (no
// generated SDK); its outputs echo its inputs.
export class Thing extends pulumi.CustomResource {
    public readonly value!: pulumi.Output<string>;
    public readonly secret!: pulumi.Output<string>;
    constructor(name: string, args: Record<string, pulumi.Input<any>>, opts?: pulumi.CustomResourceOptions) {
        super("testprov:index:Thing", name, { value: undefined, secret: undefined, ...args }, opts);
    }
}
