// Package config reads and writes what a workspace is configured with: the
// environment file (config/pulumi/environment, KEY=VALUE lines), the shared
// stack config (config/pulumi/Pulumi.<stack>.yaml, in Pulumi's format,
// comments and key order kept), and Pulumi-compatible passphrase secrets.
package config
