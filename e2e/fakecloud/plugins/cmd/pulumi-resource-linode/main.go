// Command pulumi-resource-linode is a fake of Pulumi's linode
// provider plugin for runner's end-to-end tests: it checks every resource
// against the real provider's contract (nested inputs included) and keeps
// what it creates in $FAKECLOUD_DIR (see the README of
// github.com/runnerhq/runner/e2e/fakecloud/plugins).
package main

import "github.com/runnerhq/runner/e2e/fakecloud/plugins"

func main() { plugins.Main("linode") }
