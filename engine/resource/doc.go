// Package resource holds the vocabulary shared by the engine and the resource
// plugins: URNs, property values (including secrets and unknowns), the plugin
// interface and the crypter interface that protects secrets at rest.
package resource
