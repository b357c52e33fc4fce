// Command contractgen writes the nested input shapes of the fake plugins'
// contracts (testdata/shapes/<package>.json) from Pulumi's published
// schemas: kubernetes from the provider's schema.json, aws, digitalocean
// and linode from their npm SDKs' declarations. It fetches them into a
// temporary folder (npm pack, go mod download) unless given local copies,
// and writes shapes only for the aws and kubernetes resource types
// runner's programs use and for every digitalocean and linode resource.
// README.md says how to run it and what it reads loosely.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/runnerhq/runner/e2e/fakecloud/plugins"
)

// The versions the fakes stand in for.
const (
	awsVersion          = "7.48.0"
	digitaloceanVersion = "4.80.1"
	linodeVersion       = "5.1.1"
	kubernetesVersion   = "4.34.2"
	// kubernetesModule is the provider module (and the version the Go
	// module proxy serves) whose schema.json describes kubernetes.
	kubernetesModule = "github.com/pulumi/pulumi-kubernetes/provider/v4@v4.0.0-20260115033456-f47bc2d6f199"
	kubernetesSchema = "cmd/pulumi-resource-kubernetes/schema.json"
)

func main() {
	programs := flag.String("programs", "../../../projects", "the folder of runner's programs, searched for the aws and kubernetes type tokens they use")
	out := flag.String("out", "testdata/shapes", "where to write <package>.json")
	local := map[string]*string{}
	for _, pkg := range []string{"aws", "digitalocean", "linode"} {
		local[pkg] = flag.String(pkg, "", "an unpacked @pulumi/"+pkg+" package folder (default: npm pack into a temporary folder)")
	}
	only := flag.String("only", "", "rewrite only these packages' files (a comma-separated list, such as kubernetes; default all four)")
	kube := flag.String("kubernetes", "", "the kubernetes provider's schema.json (default: go mod download "+kubernetesModule+")")
	flag.Parse()
	if err := run(*programs, *out, local, *kube, *only); err != nil {
		fmt.Fprintf(os.Stderr, "contractgen: %v\n", err)
		os.Exit(1)
	}
}

func run(programs, out string, local map[string]*string, kube, only string) error {
	chosen := func(pkg string) bool { return only == "" || slices.Contains(strings.Split(only, ","), pkg) }
	tokens, err := programTokens(programs)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "contractgen-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for pkg, version := range map[string]string{"aws": awsVersion, "digitalocean": digitaloceanVersion, "linode": linodeVersion} {
		if !chosen(pkg) {
			continue
		}
		dir := *local[pkg]
		if dir == "" {
			if dir, err = npmPack(tmp, pkg, version); err != nil {
				return err
			}
		}
		want := tokens[pkg]
		if pkg != "aws" {
			if want, err = contractTokens(pkg); err != nil {
				return err
			}
		}
		if err := writeTS(out, pkg, version, dir, want); err != nil {
			return err
		}
	}
	if !chosen("kubernetes") {
		return nil
	}
	if kube == "" {
		if kube, err = moduleFile(kubernetesModule, kubernetesSchema); err != nil {
			return err
		}
	}
	return writeSchema(out, kube, tokens["kubernetes"])
}

// programTokens returns the type tokens of each package that the Go files
// under dir name in string literals.
func programTokens(dir string) (map[string][]string, error) {
	re := regexp.MustCompile(`"((aws|kubernetes):[\w./-]+:\w+)"`)
	found := map[string]map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		data, err := os.ReadFile(path)
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			if found[m[2]] == nil {
				found[m[2]] = map[string]bool{}
			}
			found[m[2]][m[1]] = true
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for pkg, set := range found {
		for tok := range set {
			out[pkg] = append(out[pkg], tok)
		}
		sort.Strings(out[pkg])
	}
	if len(out["aws"]) == 0 || len(out["kubernetes"]) == 0 {
		return nil, fmt.Errorf("no aws or kubernetes type tokens in the programs under %s (give -programs)", dir)
	}
	return out, nil
}

// contractTokens returns every resource type of the package's flat contract.
func contractTokens(pkg string) ([]string, error) {
	c, err := plugins.LoadContract(pkg)
	if err != nil {
		return nil, err
	}
	var out []string
	for tok := range c.Resources {
		out = append(out, tok)
	}
	sort.Strings(out)
	return out, nil
}

// writeTS writes the shapes of tokens read from the npm SDK at dir.
func writeTS(out, pkg, version, dir string, tokens []string) error {
	sdk, err := readTS(dir)
	if err != nil {
		return err
	}
	sh := &plugins.Shapes{Package: pkg, Version: version, Source: "@pulumi/" + pkg + "@" + version + " types/input.d.ts",
		Resources: map[string]map[string]*plugins.InputSpec{}}
	for _, tok := range tokens {
		if sh.Resources[tok], err = sdk.resource(tok); err != nil {
			return err
		}
	}
	if err := sdk.resolve(); err != nil {
		return err
	}
	sh.Types = sdk.types
	for _, l := range sdk.leniencies() {
		fmt.Fprintf(os.Stderr, "%s: %s\n", pkg, l)
	}
	return write(out, sh)
}

// writeSchema writes the kubernetes shapes of tokens read from schema.json.
func writeSchema(out, path string, tokens []string) error {
	s, err := readSchema(path)
	if err != nil {
		return err
	}
	sh := &plugins.Shapes{Package: "kubernetes", Version: kubernetesVersion, Source: kubernetesModule + " " + kubernetesSchema,
		Resources: map[string]map[string]*plugins.InputSpec{}}
	for _, tok := range tokens {
		if sh.Resources[tok], err = s.resource(tok); err != nil {
			return err
		}
	}
	if err := s.resolve(); err != nil {
		return err
	}
	sh.Types = s.types
	return write(out, sh)
}
