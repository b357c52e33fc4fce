package pluginhost

import "google.golang.org/grpc"

// Flow-control windows of runner's gRPC connections to plugins and
// programs on this machine: fixed, and large for messages of this
// protocol, which turns off gRPC's bandwidth probing (a ping, and its
// answer, per burst of data) and most window updates. With the stream
// workers below, they cut about 8 % of the CPU of a no-op preview of 1,000
// resources (docs/benchmarks.md, YAML1000).
const (
	streamWindow = 1 << 20
	connWindow   = 4 << 20
)

// ServerOptions tune a gRPC server whose clients are plugins or programs
// on this machine: fixed windows, and a pool of stream workers, so that a
// call's handler runs on a goroutine whose stack has already grown rather
// than on a new one (more calls at once than workers still each get a
// goroutine of their own).
func ServerOptions(workers uint32) []grpc.ServerOption {
	return []grpc.ServerOption{grpc.NumStreamWorkers(workers), grpc.InitialWindowSize(streamWindow), grpc.InitialConnWindowSize(connWindow)}
}

// dialOptions tune a connection to a plugin: fixed windows.
func dialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithInitialWindowSize(streamWindow), grpc.WithInitialConnWindowSize(connWindow)}
}
