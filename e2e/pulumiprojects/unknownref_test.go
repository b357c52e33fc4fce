package pulumiprojects

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goProject writes a Go project named name in folder dir of the workspace,
// its main.go the package main of code (imports included), its module the
// test programs' (go.mod and go.sum at the workspace root).
func (w *ws) goProject(dir, name, code string) {
	w.t.Helper()
	files := map[string]string{
		dir + "/Pulumi.yaml": "name: " + name + "\nruntime: go\n",
		dir + "/main.go":     "package main\n\n" + code,
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join("testdata", "go", f))
		if err != nil {
			w.t.Fatal(err)
		}
		files[f] = string(b)
	}
	w.write(files)
}

// readerOfUnknowns are programs of each runtime that read maker's outputs
// by stack reference (id, unknown in a preview before maker is deployed;
// plain, known), make a Thing of the id and export both.
var readerOfUnknowns = map[string]string{
	"yaml": `name: reader
runtime: yaml
resources:
  ref:
    type: pulumi:pulumi:StackReference
    properties:
      name: organization/maker/${pulumi.stack}
  r:
    type: testprov:index:Thing
    properties:
      value: ${ref.outputs["id"]}
outputs:
  got: ${r.value}
  plain: ${ref.outputs["plain"]}
`,
	"ts": `
const ref = new pulumi.StackReference("organization/maker/" + pulumi.getStack());
const r = new pulumi.CustomResource("testprov:index:Thing", "r", {value: ref.getOutput("id")});
export const got = (r as any).value;
export const plain = ref.getOutput("plain");
`,
	"go": `import "github.com/pulumi/pulumi/sdk/v3/go/pulumi"

type Thing struct {
	pulumi.CustomResourceState
	Value pulumi.StringOutput ` + "`pulumi:\"value\"`" + `
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		ref, err := pulumi.NewStackReference(ctx, "organization/maker/"+ctx.Stack(), nil)
		if err != nil {
			return err
		}
		var r Thing
		if err := ctx.RegisterResource("testprov:index:Thing", "r", pulumi.Map{"value": ref.GetStringOutput(pulumi.String("id"))}, &r); err != nil {
			return err
		}
		ctx.Export("got", r.Value)
		ctx.Export("plain", ref.GetStringOutput(pulumi.String("plain")))
		return nil
	})
}
`,
}

// TestPreviewOfUnknownStackOutputs: a preview of an environment where
// nothing is deployed yet hands a downstream program, of each runtime, the
// outputs its upstream project plans: one not known yet (a Thing's ID) is
// unknown downstream, shown as Pulumi shows an unknown, and the
// resource made of it is planned; a known one keeps its value (TypeScript
// holds a stack reference's outputs unknown as a whole when one is, as
// its SDK does with any resource's). The up that follows reads the values.
// Before the fix, the Go program's preview failed in GetStringOutput
// ("stack reference output "id" does not exist").
func TestPreviewOfUnknownStackOutputs(t *testing.T) {
	for _, rt := range []string{"yaml", "ts", "go"} {
		t.Run(rt, func(t *testing.T) {
			w := newWS(t)
			store := w.withHosts(t, true)
			w.write(map[string]string{
				"maker/Pulumi.yaml": "name: maker\nruntime: yaml\nresources:\n  thing:\n    type: testprov:index:Thing\n    properties:\n      value: made\noutputs:\n  id: ${thing.id}\n  plain: known\n",
				"runner.yaml":       "providers:\n  e:\n    projects:\n      maker: {path: maker}\n      reader: {path: reader, dependsOn: [maker]}\n",
			})
			switch rt {
			case "yaml":
				w.write(map[string]string{"reader/Pulumi.yaml": readerOfUnknowns[rt]})
			case "ts":
				w.jsProject("reader", "reader", readerOfUnknowns[rt])
			case "go":
				w.goProject("reader", "reader", readerOfUnknowns[rt])
			}
			w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
			r := w.ok("-p", "e", "-s", "dev", "preview")
			reader := r.Stdout[strings.Index(r.Stdout, "── reader"):]
			for _, want := range []string{"+ create   testprov:index:Thing r", "got: [unknown]"} {
				if !strings.Contains(reader, want) {
					t.Errorf("the reader's preview does not show %q:\n%s", want, reader)
				}
			}
			if want := "plain: known"; rt != "ts" && !strings.Contains(reader, want) {
				t.Errorf("the reader's preview does not show %q:\n%s", want, reader)
			}
			if got := values(t, store); len(got) != 0 {
				t.Errorf("the preview made Things: %v", got)
			}
			w.ok("-p", "e", "-s", "dev", "up", "--yes")
			outs := w.outputs("reader")
			if id := w.outputs("maker")["id"]; id == nil || outs["got"] != id || outs["plain"] != "known" {
				t.Errorf("after the up the reader's outputs are %v, want got %v and plain known", outs, id)
			}
		})
	}
}
