package pulumiprojects

import (
	"strings"
	"testing"
)

// aliasPrograms are, by runtime, a program before and after its resources
// were renamed and moved, with Pulumi's structured aliases: a Thing
// renamed (YAML: aliases: [{name: a}]); in TypeScript also a component
// renamed, whose child (named after it) has no alias of its own, and a
// Thing moved from the stack under that component.
var aliasPrograms = map[string][2]string{
	"yaml": {
		"name: p\nruntime: yaml\nresources:\n  a:\n    type: testprov:index:Thing\n    properties:\n      value: a\n",
		"name: p\nruntime: yaml\nresources:\n  b:\n    type: testprov:index:Thing\n    properties:\n      value: a\n    options:\n      aliases:\n        - name: a\n",
	},
	"ts": {`
class Comp extends pulumi.ComponentResource {
	constructor(name: string, opts?: pulumi.ComponentResourceOptions) {
		super("my:index:Comp", name, {}, opts);
		new pulumi.CustomResource("testprov:index:Thing", name + "-x", {value: "x"}, {parent: this});
		this.registerOutputs({});
	}
}
new Comp("old");
new pulumi.CustomResource("testprov:index:Thing", "top", {value: "t"});
new pulumi.CustomResource("testprov:index:Thing", "a", {value: "a"});
`, `
class Comp extends pulumi.ComponentResource {
	constructor(name: string, opts?: pulumi.ComponentResourceOptions) {
		super("my:index:Comp", name, {}, opts);
		new pulumi.CustomResource("testprov:index:Thing", name + "-x", {value: "x"}, {parent: this});
		this.registerOutputs({});
	}
}
const c = new Comp("new", {aliases: [{name: "old"}]});
new pulumi.CustomResource("testprov:index:Thing", "moved", {value: "t"}, {parent: c, aliases: [{name: "top", parent: undefined}]});
new pulumi.CustomResource("testprov:index:Thing", "b", {value: "a"}, {aliases: [{name: "a"}]});
`},
}

// TestAliasSpecsThroughTheCLI: resources renamed and moved with Pulumi's
// structured aliases, which the SDKs send as alias specs now that the
// monitor supports them (aliasSpecs), keep their state: the up after the
// change creates and deletes nothing, and the state holds them under
// their new names alone.
func TestAliasSpecsThroughTheCLI(t *testing.T) {
	for _, rt := range []string{"yaml", "ts"} {
		t.Run(rt, func(t *testing.T) {
			w := newWS(t)
			store := w.withHosts(t, rt == "yaml")
			w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      p: {path: p}\n"})
			write := func(i int) {
				if rt == "yaml" {
					w.write(map[string]string{"p/Pulumi.yaml": aliasPrograms[rt][i]})
					return
				}
				w.write(map[string]string{"p/index.ts": "import * as pulumi from \"@pulumi/pulumi\";\n" + aliasPrograms[rt][i]})
			}
			if rt == "ts" {
				w.jsProject("p", "p", "")
			}
			write(0)
			w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
			w.ok("-p", "e", "-s", "dev", "up", "--yes")
			made := values(t, store)
			write(1)
			for _, cmd := range []string{"preview", "up"} {
				args := []string{"-p", "e", "-s", "dev", "--json", cmd}
				if cmd == "up" {
					args = append(args, "--yes")
				}
				if c := runnerSummary(t, w.ok(args...)); !onlySame(c) {
					t.Errorf("%s after the renames counts %v, want only same", cmd, c)
				}
			}
			if got := values(t, store); !equal(got, made) {
				t.Errorf("the store holds %v after the renames, want %v", got, made)
			}
			renamed := map[string]string{"a": "b", "old": "new", "old-x": "new-x", "top": "moved"}
			for old, now := range renamed {
				if rt == "yaml" && old != "a" {
					continue
				}
				if exported(t, w, "p", old) != nil || exported(t, w, "p", now) == nil {
					t.Errorf("the state does not hold %s under its new name %s alone", old, now)
				}
			}
		})
	}
}

// TestTwoResourcesAliasingOne: two resources naming one former resource
// as an alias, or one by its name and one by an alias (in whichever
// order they register), are refused, as
// Pulumi's engine refuses them ("Duplicate resource alias"), naming the
// alias; before, the first took the former resource's state and the
// second was created beside it, a second cloud resource made silently.
func TestTwoResourcesAliasingOne(t *testing.T) {
	thing := func(name, alias string) string {
		s := "  " + name + ":\n    type: testprov:index:Thing\n    properties:\n      value: a\n"
		if alias != "" {
			s += "    options:\n      aliases:\n        - name: " + alias + "\n"
		}
		return s
	}
	for _, tc := range []struct{ name, program string }{
		{"two aliases", thing("b", "a") + thing("c", "a")},
		{"its own name and an alias", thing("a", "") + thing("b", "a")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWS(t)
			store := w.withHosts(t, true)
			w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      p: {path: p}\n",
				"p/Pulumi.yaml": "name: p\nruntime: yaml\nresources:\n" + thing("a", "")})
			w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
			w.ok("-p", "e", "-s", "dev", "up", "--yes")
			made := values(t, store)
			w.write(map[string]string{"p/Pulumi.yaml": "name: p\nruntime: yaml\nresources:\n" + tc.program})
			r := w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
			if !strings.Contains(r.Stdout+r.Stderr, "only one") || !strings.Contains(r.Stdout+r.Stderr, "::a") {
				t.Errorf("the up does not say that two resources claim a's state:\n%s\n%s", r.Stdout, r.Stderr)
			}
			if got := values(t, store); !equal(got, made) {
				t.Errorf("the store holds %v after the refused up, want %v", got, made)
			}
		})
	}
}
