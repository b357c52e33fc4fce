// Reads the outputs of the chain project (config source: another
// project's name) by stack reference.
import * as pulumi from "@pulumi/pulumi";
import { Thing } from "./thing";

const source = new pulumi.Config().get("source") ?? "chain";
const ref = new pulumi.StackReference(`organization/${source}/${pulumi.getStack()}`);
const r = new Thing("r", { value: ref.getOutput("last") });

export const got = r.value;
export const token = ref.getOutput("token");
