// Three testprov resources in a chain, a secret config value and stack
// outputs. Config failAt=c makes the program fail after a and b.
import * as pulumi from "@pulumi/pulumi";
import { Thing } from "./thing";

const cfg = new pulumi.Config();
const prefix = cfg.get("prefix") ?? "p";
const tok = cfg.requireSecret("token");
const a = new Thing("a", { value: `${prefix}-a` });
const b = new Thing("b", { value: a.value.apply(v => `${v}-b`), secret: tok });
if (cfg.get("failAt") === "c") {
    throw new Error("failing on purpose before c");
}
const c = new Thing("c", { value: b.value.apply(v => `${v}-c`) }, { dependsOn: [b] });

export const last = c.value;
export const token = b.secret;
