// Package providertest builds and inspects pulumi-resource-testprov, the
// real Pulumi provider plugin of engine/pluginhost/testprovider (a module of
// its own), for the tests of several packages: Binary builds it once per
// machine state, Store reads the resource files it keeps.
package providertest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/runnerhq/runner/internal/buildcache"
)

// BinaryName is the plugin's file name, as Pulumi looks it up on PATH.
const BinaryName = "pulumi-resource-testprov"

// The environment variables the plugin reads.
const (
	// EnvAcceptSecrets "false" makes Handshake (or, legacy, Configure)
	// answer accept_secrets = false.
	EnvAcceptSecrets = "TESTPROV_ACCEPT_SECRETS"
	// EnvAcceptResources "false" makes it answer accept_resources = false.
	EnvAcceptResources = "TESTPROV_ACCEPT_RESOURCES"
	// EnvAcceptOutputs "false" makes it answer accept_outputs = false.
	EnvAcceptOutputs = "TESTPROV_ACCEPT_OUTPUTS"
	// EnvLegacy "1" makes Handshake return Unimplemented.
	EnvLegacy = "TESTPROV_LEGACY"
	// EnvStartDelay (a Go duration) delays the port line.
	EnvStartDelay = "TESTPROV_START_DELAY"
	// EnvBadStart "noport" exits 1 without a port; "garbage" prints
	// "hello world" first and hangs until SIGINT/SIGTERM.
	EnvBadStart = "TESTPROV_BAD_START"
)

// The plugin's resource types.
const (
	TypeThing = "testprov:index:Thing"
	TypeBlob  = "testprov:index:Blob"
	TypeRef   = "testprov:index:Ref"
)

// buildOnce builds the binary once per test process.
var buildOnce = sync.OnceValues(build)

// Binary returns the path of pulumi-resource-testprov, building it when the
// cache under os.TempDir() has no binary for the module's current sources
// and Go version (internal/buildcache: parallel test processes share one
// build). It fails tb when the build fails.
func Binary(tb testing.TB) string {
	tb.Helper()
	path, err := buildOnce()
	if err != nil {
		tb.Fatalf("providertest: %v", err)
	}
	return path
}

// Dir returns the directory of Binary, to put on PATH; it holds nothing else.
func Dir(tb testing.TB) string {
	tb.Helper()
	return filepath.Dir(Binary(tb))
}

// ModuleDir returns the directory of the plugin's Go module.
func ModuleDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot locate the providertest package's source")
	}
	dir := filepath.Join(filepath.Dir(file), "..", "testprovider")
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("the testprovider module is not at %s: %w", dir, err)
	}
	return dir, nil
}

// Build returns the plugin binary's path, building it once per test
// process as Binary does, for a TestMain that has no testing.TB.
func Build() (string, error) { return buildOnce() }

// build returns the cached binary for the current sources, building it
// when it is missing.
func build() (string, error) {
	mod, err := ModuleDir()
	if err != nil {
		return "", err
	}
	dir, err := buildcache.Build(buildcache.Spec{
		Name: "runner-testprov", Module: mod, Commands: map[string]string{BinaryName: "."},
	})
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, BinaryName), nil
}
