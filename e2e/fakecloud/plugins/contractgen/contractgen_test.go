package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/runnerhq/runner/e2e/fakecloud/plugins"
)

func TestParseType(t *testing.T) {
	sdk := &tsSDK{enums: map[string][]any{"ec2.Tenancy": {"default", "dedicated"}}, types: map[string]*plugins.InputSpec{}, leniences: map[string]int{}}
	for _, tt := range []struct{ src, want string }{
		{`pulumi.Input<string | undefined>`, `{"type":"string"}`},
		{`pulumi.Input<pulumi.Input<string>[]>`, `{"type":"array","items":{"type":"string"}}`},
		{`pulumi.Input<pulumi.Input<pulumi.Input<number>[]>[] | undefined>`, `{"type":"array","items":{"type":"array","items":{"type":"number"}}}`},
		{"pulumi.Input<{\n [key: string]: pulumi.Input<string>;\n } | undefined>", `{"type":"object","additionalProperties":{"type":"string"}}`},
		{`pulumi.Input<inputs.eks.ClusterVpcConfig>`, `{"ref":"eks.ClusterVpcConfig"}`},
		{`pulumi.Input<pulumi.Input<inputs.eks.NodeGroupTaint>[]>`, `{"type":"array","items":{"ref":"eks.NodeGroupTaint"}}`},
		{`pulumi.Input<enums.ec2.Tenancy>`, `{"type":"string","enum":["default","dedicated"]}`},
		{`pulumi.Input<string | enums.ec2.Tenancy>`, `{"type":"string"}`},
		{`pulumi.Input<"Allow" | "Deny">`, `{"type":"string","enum":["Allow","Deny"]}`},
		{`pulumi.Input<string | inputs.iam.PolicyDocument>`, `{"oneOf":[{"ref":"iam.PolicyDocument"},{"type":"string"}]}`},
		{`pulumi.Input<string | Role>`, `{"type":"any"}`},
		{`pulumi.Input<string | pulumi.Input<string>[]>`, `{"oneOf":[{"type":"array","items":{"type":"string"}},{"type":"string"}]}`},
		{`pulumi.asset.Archive`, `{"type":"asset"}`},
		{`any`, `{"type":"any"}`},
		{`{ a: pulumi.Input<number>; b?: boolean; }`, `{"type":"object","properties":{"a":{"type":"number","required":true},"b":{"type":"boolean"}}}`},
	} {
		got, err := sdk.parseType(tt.src, "")
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		b, _ := json.Marshal(got)
		if string(b) != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, b, tt.want)
		}
	}
}

func TestReadTS(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("types/input.d.ts", `import * as pulumi from "@pulumi/pulumi";
export interface GetThingFilter {
    name: string;
}
export declare namespace eks {
    interface ClusterVpcConfig {
        /**
         * The subnets. } not a brace that counts
         */
        subnetIds: pulumi.Input<pulumi.Input<string>[]>;
        mode?: pulumi.Input<enums.eks.Mode | undefined>;
    }
    interface Unused {
        x?: pulumi.Input<string>;
    }
}
export declare namespace iam {
    interface Other {
        y: pulumi.Input<inputs.eks.ClusterVpcConfig>;
    }
}
`)
	write("types/enums/eks/index.d.ts", `export declare const Mode: {
    readonly A: "a";
    readonly B: "b";
};
export type Mode = (typeof Mode)[keyof typeof Mode];
`)
	write("eks/cluster.d.ts", `import * as pulumi from "@pulumi/pulumi";
import { Role } from "../iam";
export interface ClusterArgs {
    role?: pulumi.Input<string | Role | undefined>;
    roleArn: pulumi.Input<string>;
    vpcConfig: pulumi.Input<inputs.eks.ClusterVpcConfig>;
    tags?: pulumi.Input<{
        [key: string]: pulumi.Input<string>;
    } | undefined>;
}
`)
	sdk, err := readTS(dir)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := sdk.resource("aws:eks/cluster:Cluster")
	if err != nil {
		t.Fatal(err)
	}
	if err := sdk.resolve(); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(map[string]any{"inputs": inputs, "types": sdk.types})
	want := `{"inputs":{"role":{"type":"string"},"roleArn":{"type":"string","required":true},"tags":{"type":"object","additionalProperties":{"type":"string"}},` +
		`"vpcConfig":{"required":true,"ref":"eks.ClusterVpcConfig"}},"types":{"eks.ClusterVpcConfig":{"type":"object","properties":{` +
		`"mode":{"type":"string","enum":["a","b"]},"subnetIds":{"type":"array","required":true,"items":{"type":"string"}}}}}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, ok := sdk.bodies["iam.Other"]; !ok {
		t.Errorf("the second namespace's interface was not read: %v", sdk.bodies)
	}
}
