package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

// record is one resource's file, <store>/<id>.json. Inputs and outputs use
// Pulumi's JSON encoding of property values: secrets, assets, archives and
// resource references are objects keyed by the signature key
// 4dabf18193072939515e22adb298388d (a secret's plaintext is its "value").
type record struct {
	ID         string         `json:"id"`
	Type       string         `json:"type"`
	URN        string         `json:"urn"`
	Inputs     map[string]any `json:"inputs"`
	Outputs    map[string]any `json:"outputs"`
	InitFailed bool           `json:"initFailed,omitempty"` // set by initError, cleared by Update
}

// maxInFlightFile is the name, in the store, of the file holding the most
// resource calls seen running at once.
const maxInFlightFile = "maxInFlight"

// validID is what an ID must look like to name a file in the store.
var validID = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)

// newID returns a fresh random ID for a resource of type typ, e.g.
// "thing-0f3a9c1be2d47a65".
func newID(typ string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	name := typ[strings.LastIndex(typ, ":")+1:]
	return strings.ToLower(name) + "-" + hex.EncodeToString(b)
}

// recordPath returns the file of id in store, or an error for an ID that
// cannot name a file.
func recordPath(store, id string) (string, error) {
	if !validID.MatchString(id) {
		return "", status.Errorf(codes.InvalidArgument,
			"testprov: %q is not a testprov resource ID (letters, digits, '.', '_' and '-')", id)
	}
	return filepath.Join(store, id+".json"), nil
}

// readRecord reads id's file; a missing file is (nil, nil).
func readRecord(store, id string) (*record, error) {
	path, err := recordPath(store, id)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, status.Errorf(codes.Internal, "testprov: read resource %s: %v", id, err)
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, status.Errorf(codes.Internal, "testprov: resource file %s is not valid JSON: %v", path, err)
	}
	return &r, nil
}

// writeRecord writes r to its file atomically (a temporary file renamed).
func writeRecord(store string, r *record) error {
	path, err := recordPath(store, r.ID)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return status.Errorf(codes.Internal, "testprov: encode resource %s: %v", r.ID, err)
	}
	if err := writeAtomic(path, append(data, '\n')); err != nil {
		return status.Errorf(codes.Internal, "testprov: write resource %s: %v", r.ID, err)
	}
	return nil
}

// findRecord returns the record of urn (nil if there is none; an error if
// there are several).
func findRecord(store, urn string) (*record, error) {
	entries, err := os.ReadDir(store)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "testprov: list the store: %v", err)
	}
	var found *record
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !validID.MatchString(id) {
			continue
		}
		r, err := readRecord(store, id)
		if err != nil || r == nil || r.URN != urn {
			continue
		}
		if found != nil {
			return nil, status.Errorf(codes.FailedPrecondition, "testprov: %s has two resources: %s and %s", urn, found.ID, r.ID)
		}
		found = r
	}
	return found, nil
}

// deleteRecord removes id's file; a missing file is no error.
func deleteRecord(store, id string) error {
	path, err := recordPath(store, id)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return status.Errorf(codes.Internal, "testprov: delete resource %s: %v", id, err)
	}
	return nil
}

// writeAtomic writes data to path through a temporary file in the same
// directory, so a reader never sees half a file.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	// No fsync: the store is a fake cloud, and atomic is all its readers
	// need. The temporary file is removed only when the rename did not
	// happen (a remove after it is two failing unlinks per write).
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name()) //nolint:errcheck // best effort: the write already failed
	}
	return err
}

// recordMax writes n to <store>/maxInFlight unless the file already holds a
// larger number (another provider process sharing the store).
func recordMax(store string, n int) error {
	path := filepath.Join(store, maxInFlightFile)
	if data, err := os.ReadFile(path); err == nil {
		if old, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && old >= n {
			return nil
		}
	}
	if err := writeAtomic(path, []byte(strconv.Itoa(n)+"\n")); err != nil {
		return fmt.Errorf("record the calls in flight: %w", err)
	}
	return nil
}

// fileOptions are the marshal options of the store's files: everything kept.
var fileOptions = plugin.MarshalOptions{Label: "store", KeepUnknowns: true, KeepSecrets: true, KeepResources: true}

// encode returns m in Pulumi's JSON encoding of property values.
func encode(m resource.PropertyMap) (map[string]any, error) {
	s, err := plugin.MarshalProperties(m, fileOptions)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "testprov: encode properties: %v", err)
	}
	return s.AsMap(), nil
}

// decode reads a property map from Pulumi's JSON encoding.
func decode(m map[string]any) (resource.PropertyMap, error) {
	s, err := structpb.NewStruct(m)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "testprov: decode a stored resource: %v", err)
	}
	props, err := plugin.UnmarshalProperties(s, fileOptions)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "testprov: decode a stored resource: %v", err)
	}
	return props, nil
}
