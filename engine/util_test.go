package engine_test

import (
	"strings"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func backendEntry(u resource.URN) backend.Entry {
	return backend.Entry{Seq: 1, Kind: backend.EntryBegin, Op: "create",
		New: &state.Resource{URN: u, Custom: true, Type: typ, Inputs: resource.PropertyMap{}}}
}
