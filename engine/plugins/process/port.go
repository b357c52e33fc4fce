package process

import (
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/runnerhq/runner/engine/resource"
)

// PortType is the type token of a TCP port picked for a local service.
const PortType = "process:index:Port"

// checkPort validates a port's inputs: host (default 127.0.0.1) and port
// (0 or absent: pick a free one at create).
func checkPort(news resource.PropertyMap) (resource.PropertyMap, error) {
	if !resource.ContainsComputed(news["host"]) {
		if _, err := news.String("host", ""); err != nil {
			return nil, err
		}
	}
	if !resource.ContainsComputed(news["port"]) {
		p, err := news.Int("port", 0)
		if err != nil {
			return nil, err
		}
		if p < 0 || p > 65535 {
			return nil, fmt.Errorf("property \"port\" must be between 1 and 65535 (or 0 to pick a free one), not %d", p)
		}
	}
	return news, nil
}

// createPort picks the port: the pinned one, or a free one found by
// binding port 0. The choice is kept in state, so it stays the same on
// every later run.
func createPort(in resource.PropertyMap, preview bool) (resource.CreateResponse, error) {
	outs := copyMap(in)
	if preview && (resource.ContainsComputed(in["host"]) || resource.ContainsComputed(in["port"])) {
		// What the inputs will name is unknown until up.
		if !resource.ContainsComputed(in["host"]) {
			outs["host"], _ = in.String("host", "127.0.0.1")
		}
		outs["assigned"] = resource.Computed{}
		return resource.CreateResponse{Outputs: outs}, nil
	}
	host, _ := in.String("host", "127.0.0.1")
	pinned, _ := in.Int("port", 0)
	outs["host"] = host
	if pinned != 0 {
		outs["assigned"] = float64(pinned)
	} else if preview {
		outs["assigned"] = resource.Computed{}
		return resource.CreateResponse{Outputs: outs}, nil
	} else {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return resource.CreateResponse{}, fmt.Errorf("finding a free port on %s: %w", host, err)
		}
		pinned = l.Addr().(*net.TCPAddr).Port
		l.Close()
		outs["assigned"] = float64(pinned)
	}
	if preview {
		return resource.CreateResponse{Outputs: outs}, nil
	}
	return resource.CreateResponse{ID: net.JoinHostPort(host, strconv.Itoa(pinned)), Outputs: outs}, nil
}

var errPortUpdate = errors.New("processes and ports cannot be changed in place; they are replaced")
