// Package state holds a project's recorded state for one stack (a snapshot of
// its resources, in memory with plaintext secrets), its serialization as
// Pulumi's deployment format version 3 with secrets encrypted by a
// resource.Crypter, and the checks a snapshot must pass on load.
package state
