// Package fakecloud builds and inspects the fake pulumi-resource-aws
// (7.48.0) and pulumi-resource-kubernetes (4.34.2) plugins of the nested
// module e2e/fakecloud/plugins, for end-to-end tests: Binaries builds both
// into one directory (put it first on PATH), List reads the resources they
// keep in the fake cloud's directory ($FAKECLOUD_DIR), AWSEnv gives the
// environment the fake aws provider needs.
package fakecloud

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
	"github.com/runnerhq/runner/internal/buildcache"
)

// The plugins' file names, as Pulumi looks them up on PATH, and versions.
const (
	AWSBinary         = "pulumi-resource-aws"
	AWSVersion        = "7.48.0"
	KubernetesBinary  = "pulumi-resource-kubernetes"
	KubernetesVersion = "4.34.2"
	// DigitalOceanBinary is the fake digitalocean plugin (4.80.1).
	DigitalOceanBinary = "pulumi-resource-digitalocean"
	// LinodeBinary is the fake linode plugin (5.1.1).
	LinodeBinary = "pulumi-resource-linode"
)

// The environment variables the plugins read, and the fake AWS account.
const (
	// EnvDir is the fake cloud's directory (required by both plugins).
	EnvDir = "FAKECLOUD_DIR"
	// EnvECRImages "1" makes every ECR repository hold images, so deleting
	// one fails unless its forceDelete is true.
	EnvECRImages = "FAKECLOUD_ECR_IMAGES"
	// AccountID is the account in the fake aws provider's ARNs and URLs.
	AccountID = "123456789012"
)

// buildOnce builds the plugins once per test process.
var buildOnce = sync.OnceValues(build)

// Binaries returns the directory holding both fake plugins and nothing
// else, building them when the cache under os.TempDir() has none for the
// module's current sources (parallel test processes share one build). It
// fails tb when the build fails.
func Binaries(tb testing.TB) string {
	tb.Helper()
	dir, err := buildOnce()
	if err != nil {
		tb.Fatalf("fakecloud: %v", err)
	}
	return dir
}

// Build returns the directory of the plugins as Binaries does, for a
// TestMain that has no testing.TB.
func Build() (string, error) { return buildOnce() }

// ModuleDir returns the directory of the plugins' Go module.
func ModuleDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot locate the fakecloud package's source")
	}
	dir := filepath.Join(filepath.Dir(file), "plugins")
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("the fake plugins' module is not at %s: %w", dir, err)
	}
	return dir, nil
}

// build builds the plugins into the cache.
func build() (string, error) {
	mod, err := ModuleDir()
	if err != nil {
		return "", err
	}
	return buildcache.Build(buildcache.Spec{Name: "runner-fakecloud", Module: mod, Commands: map[string]string{
		AWSBinary:          "./cmd/" + AWSBinary,
		KubernetesBinary:   "./cmd/" + KubernetesBinary,
		DigitalOceanBinary: "./cmd/" + DigitalOceanBinary,
		LinodeBinary:       "./cmd/" + LinodeBinary,
	}})
}

// AWSEnv returns the environment that satisfies the fake aws provider's
// Configure: a region and (fake) access keys.
func AWSEnv(region string) []string {
	return []string{"AWS_REGION=" + region, "AWS_ACCESS_KEY_ID=AKIAFAKECLOUD0000000", "AWS_SECRET_ACCESS_KEY=fakecloud-secret-key"}
}

// Resource is one resource of the fake cloud. Inputs and outputs use
// Pulumi's JSON encoding of property values: a secret is an object whose
// SigKey is SecretSig, with its plaintext under "value" (Unwrap returns it).
type Resource struct {
	Package string         `json:"package"` // "aws" or "kubernetes"
	Type    string         `json:"type"`    // the type token
	ID      string         `json:"id"`
	URN     string         `json:"urn"`
	Inputs  map[string]any `json:"inputs"`
	Outputs map[string]any `json:"outputs"`
}

// The signature of a secret in Resource's inputs and outputs: the same
// encoding as the test provider's store.
const (
	SigKey    = providertest.SigKey
	SecretSig = providertest.SecretSig
)

// List returns every resource of the fake cloud in dir (the plugins'
// FAKECLOUD_DIR), sorted by package, type and ID; none when dir is empty
// or missing.
func List(dir string) ([]Resource, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list the fake cloud %s: %w", dir, err)
	}
	out := []Resource{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read the fake cloud: %w", err)
		}
		var r Resource
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("fake cloud file %s: %w", p, err)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Package != b.Package {
			return a.Package < b.Package
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.ID < b.ID
	})
	return out, nil
}

// Unwrap returns the plaintext of a secret value, or v unchanged.
func Unwrap(v any) any { return providertest.Unwrap(v) }

// CallsFile is the file in the fake cloud's directory where the plugins
// log every create and delete that changed the cloud, one JSON Call a line.
const CallsFile = "calls.jsonl"

// Call is one create or delete the fake cloud logged.
type Call struct {
	Op   string `json:"op"` // create or delete
	Type string `json:"type"`
	ID   string `json:"id"`
	URN  string `json:"urn"`
}

// Calls returns the creates and deletes logged in dir, oldest first (none
// when nothing was logged).
func Calls(dir string) ([]Call, error) {
	data, err := os.ReadFile(filepath.Join(dir, CallsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the fake cloud's calls: %w", err)
	}
	var out []Call
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var c Call
		if err := json.Unmarshal(line, &c); err != nil {
			return nil, fmt.Errorf("the fake cloud's calls, line %d: %w", i+1, err)
		}
		out = append(out, c)
	}
	return out, nil
}
