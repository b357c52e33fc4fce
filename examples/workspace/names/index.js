// A random name and a random password, served by runner's built-in random
// plugin (no download): registered by type token, with no generated SDK.
"use strict";
const pulumi = require("@pulumi/pulumi");

class RandomString extends pulumi.CustomResource {
    constructor(name, args, opts) {
        super("random:index/randomString:RandomString", name, { result: undefined, ...args }, opts);
    }
}

const length = new pulumi.Config().getNumber("length") ?? 8;
const name = new RandomString("name", { length, special: false, upper: false });
const password = new RandomString("password", { length: 24 }, { additionalSecretOutputs: ["result"] });

exports.name = name.result;
exports.password = password.result;
