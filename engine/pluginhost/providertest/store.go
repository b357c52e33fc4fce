package providertest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Store is the plugin's store directory (its `store` config key): one
// <id>.json file per resource, plus maxInFlight.
//
// A resource file is an object with "id", "type", "urn", "inputs",
// "outputs" and, after initError, "initFailed": true. Inputs and outputs
// use Pulumi's JSON encoding of property values: a secret is
// {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
// "value": <plaintext>} (Unwrap returns the plaintext); assets, archives and
// resource references are signature objects too.
type Store string

// SecretSig is the signature value of a secret in the store's files (under
// the key SigKey).
const (
	SigKey    = "4dabf18193072939515e22adb298388d"
	SecretSig = "1b47061264138c4ac30d75fd1eb44270"
)

// Resources returns every stored resource's file, decoded, by ID.
func (s Store) Resources() (map[string]map[string]any, error) {
	paths, err := filepath.Glob(filepath.Join(string(s), "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list the testprov store: %w", err)
	}
	out := map[string]map[string]any{}
	for _, p := range paths {
		id := strings.TrimSuffix(filepath.Base(p), ".json")
		r, ok, err := s.Resource(id)
		if err != nil {
			return nil, err
		}
		if ok {
			out[id] = r
		}
	}
	return out, nil
}

// Resource returns the decoded file of the resource id, false when there
// is none.
func (s Store) Resource(id string) (map[string]any, bool, error) {
	data, err := os.ReadFile(s.Path(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, fmt.Errorf("read testprov resource %s: %w", id, err)
	}
	var r map[string]any
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, false, fmt.Errorf("testprov resource file %s: %w", s.Path(id), err)
	}
	return r, true, nil
}

// Path returns the file of the resource id (to edit or delete it).
func (s Store) Path(id string) string {
	return filepath.Join(string(s), id+".json")
}

// MaxInFlight returns the most resource calls one plugin process ran at
// once on this store (0 when none was recorded).
func (s Store) MaxInFlight() int {
	data, err := os.ReadFile(filepath.Join(string(s), "maxInFlight"))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return n
}

// Unwrap returns the plaintext of a stored secret value, or v unchanged.
func Unwrap(v any) any {
	for {
		m, ok := v.(map[string]any)
		if !ok || m[SigKey] != SecretSig {
			return v
		}
		v = m["value"]
	}
}
