// Package pluginhost runs Pulumi's resource provider plugins
// (pulumi-resource-<pkg> executables) and serves them to the engine as
// resource.Configurable, speaking Pulumi's ResourceProvider gRPC protocol as
// the Pulumi CLI does: it starts each plugin in its own process group (on
// Linux it dies with the runner), hands it the address of an engine callback
// server (Log and health), reads its port, dials it, shakes hands, and turns
// the engine's Check, Diff, Create, Read, Update and Delete calls, and the
// provider's CheckConfig, DiffConfig and Configure, into gRPC calls with
// Pulumi's property encoding (package wire). A Pool starts plugins when they
// are first needed and runs one process per package, version and
// configuration, shared by every project of a run, until Close.
package pluginhost
