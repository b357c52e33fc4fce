package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"google.golang.org/protobuf/types/known/structpb"
)

// EnvDir names the environment variable holding the fake cloud's directory.
const EnvDir = "FAKECLOUD_DIR"

// Record is one resource of the fake cloud: the file
// $FAKECLOUD_DIR/<package>/<hash of type and id>.json. Inputs and outputs
// use Pulumi's JSON encoding of property values (a secret is an object
// whose "4dabf18193072939515e22adb298388d" key is
// "1b47061264138c4ac30d75fd1eb44270", with its plaintext in "value").
type Record struct {
	Package string         `json:"package"`
	Type    string         `json:"type"`
	ID      string         `json:"id"`
	URN     string         `json:"urn"`
	Inputs  map[string]any `json:"inputs"`
	Outputs map[string]any `json:"outputs"`
}

// store is one provider's part of the fake cloud.
type store struct {
	dir string // $FAKECLOUD_DIR/<package>
}

// openStore returns the store of pkg under the directory of $FAKECLOUD_DIR,
// created if needed.
func openStore(pkg string) (*store, error) {
	root := os.Getenv(EnvDir)
	if root == "" {
		return nil, fmt.Errorf("%s is not set: the fake %s provider keeps its resources in that directory", EnvDir, pkg)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("%s=%q: %w", EnvDir, root, err)
	}
	dir := filepath.Join(abs, pkg)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the fake cloud directory: %w", err)
	}
	return &store{dir: dir}, nil
}

// path returns the file of the resource typ/id.
func (s *store) path(typ, id string) string {
	sum := sha256.Sum256([]byte(typ + "\x00" + id))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:12])+".json")
}

// get returns the record of typ/id, nil when there is none.
func (s *store) get(typ, id string) (*Record, error) {
	return readRecord(s.path(typ, id))
}

// readRecord reads one record file; a missing one is (nil, nil).
func readRecord(path string) (*Record, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("read the fake cloud: %w", err)
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("fake cloud file %s is not valid JSON: %w", path, err)
	}
	return &r, nil
}

// all returns every record of the store.
func (s *store) all() ([]*Record, error) {
	paths, err := filepath.Glob(filepath.Join(s.dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list the fake cloud: %w", err)
	}
	var out []*Record
	for _, p := range paths {
		r, err := readRecord(p)
		if err != nil {
			return nil, err
		}
		if r != nil {
			out = append(out, r)
		}
	}
	return out, nil
}

// put writes the record of typ/id atomically.
func (s *store) put(pkg, typ, id string, urn resource.URN, inputs, outputs resource.PropertyMap) error {
	ins, err := encode(inputs)
	if err != nil {
		return err
	}
	outs, err := encode(outputs)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(Record{Package: pkg, Type: typ, ID: id, URN: string(urn), Inputs: ins, Outputs: outs}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode resource %s: %w", id, err)
	}
	return writeAtomic(s.path(typ, id), append(data, '\n'))
}

// remove deletes the record of typ/id; a missing one is no error.
func (s *store) remove(typ, id string) error {
	if err := os.Remove(s.path(typ, id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("delete resource %s from the fake cloud: %w", id, err)
	}
	return nil
}

// writeAtomic writes data to path through a uniquely named temporary file
// renamed over it, so concurrent plugin processes never see half a file.
func writeAtomic(path string, data []byte) error {
	tmp := filepath.Join(filepath.Dir(path), ".tmp-"+randHex(16))
	err := os.WriteFile(tmp, data, 0o644)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp) //nolint:errcheck // the write failed already
		return fmt.Errorf("write the fake cloud file %s: %w", path, err)
	}
	return nil
}

// fileOptions keep everything in the store's files.
var fileOptions = plugin.MarshalOptions{Label: "fakecloud", KeepUnknowns: true, KeepSecrets: true, KeepResources: true}

// encode returns m in Pulumi's JSON encoding of property values.
func encode(m resource.PropertyMap) (map[string]any, error) {
	s, err := plugin.MarshalProperties(m, fileOptions)
	if err != nil {
		return nil, fmt.Errorf("encode properties: %w", err)
	}
	return s.AsMap(), nil
}

// decode reads a property map in Pulumi's JSON encoding.
func decode(m map[string]any) (resource.PropertyMap, error) {
	s, err := structpb.NewStruct(m)
	if err != nil {
		return nil, fmt.Errorf("decode a stored resource: %w", err)
	}
	props, err := plugin.UnmarshalProperties(s, fileOptions)
	if err != nil {
		return nil, fmt.Errorf("decode a stored resource: %w", err)
	}
	return props, nil
}

// CallsFile is the file, in $FAKECLOUD_DIR, where every create and delete
// that changed the fake cloud is logged, one JSON object a line (Call).
const CallsFile = "calls.jsonl"

// Call is one line of CallsFile.
type Call struct {
	Op   string `json:"op"` // create or delete
	Type string `json:"type"`
	ID   string `json:"id"`
	URN  string `json:"urn"`
}

// logCall appends one call to the fake cloud's CallsFile (one write of a
// short line with O_APPEND: lines of several plugin processes never mix).
func (s *store) logCall(op, typ, id string, urn resource.URN) error {
	line, err := json.Marshal(Call{Op: op, Type: typ, ID: id, URN: string(urn)})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(filepath.Dir(s.dir), CallsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("log the call: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("log the call: %w", err)
	}
	return nil
}

// byURN returns the record of urn, nil when there is none.
func (s *store) byURN(urn string) (*Record, error) {
	all, err := s.all()
	if err != nil {
		return nil, err
	}
	for _, r := range all {
		if r.URN == urn {
			return r, nil
		}
	}
	return nil, nil
}
