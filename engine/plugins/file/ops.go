package file

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/runnerhq/runner/engine/atomicfile"
	"github.com/runnerhq/runner/engine/resource"
)

// Create writes the file. With Preview set it only predicts the outputs.
func (Plugin) Create(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	if req.Type != Type {
		return resource.CreateResponse{}, errUnknownType(req.Type)
	}
	outs, path, err := apply(ctx, req.Inputs, req.Preview)
	if err != nil {
		return resource.CreateResponse{}, fmt.Errorf("creating %s: %w", Type, err)
	}
	return resource.CreateResponse{ID: path, Outputs: outs}, nil
}

// Update rewrites the file with the new content and mode.
func (Plugin) Update(ctx context.Context, req resource.UpdateRequest) (resource.UpdateResponse, error) {
	if req.Type != Type {
		return resource.UpdateResponse{}, errUnknownType(req.Type)
	}
	outs, _, err := apply(ctx, req.NewInputs, req.Preview)
	if err != nil {
		return resource.UpdateResponse{}, fmt.Errorf("updating %s %s: %w", Type, req.ID, err)
	}
	return resource.UpdateResponse{Outputs: outs}, nil
}

// apply computes the outputs for inputs and, unless previewing, writes the
// file. During preview, outputs that depend on unknown inputs are Computed.
func apply(ctx context.Context, in resource.PropertyMap, preview bool) (resource.PropertyMap, string, error) {
	outs := in.Copy(4)
	if _, ok := outs["mode"]; !ok {
		outs["mode"] = DefaultMode
	}
	if _, ok := outs["content"]; !ok {
		outs["content"] = ""
	}
	secret := in.IsSecret("content")
	if !in.Known("path") || !in.Known("content") || !in.Known("mode") {
		if !preview {
			return nil, "", errors.New("the inputs still hold unknown values")
		}
		outs["sha256"] = wrap(resource.Computed{}, secret)
		if !in.Known("path") {
			return outs, "", nil
		}
	}
	path, err := absPath(in)
	if err != nil {
		return nil, "", err
	}
	outs["path"] = path
	if !in.Known("content") || !in.Known("mode") {
		return outs, "", nil
	}
	content, _ := in.String("content", "")
	mode, err := parseMode(outs["mode"].(string))
	if err != nil {
		return nil, "", err
	}
	outs["sha256"] = wrap(digest([]byte(content)), secret)
	if preview {
		return outs, "", nil
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	atomicfile.SweepFor(path) // litter of a killed write
	if err := atomicfile.Write(path, []byte(content), fs.FileMode(mode)); err != nil {
		return nil, "", err
	}
	return outs, path, nil
}

// Read reads the file back: its actual content, mode and digest, or no ID
// when it is gone. Without an ID (a create interrupted by a crash) it looks
// at the input path: a file there is reported as found, with what it holds.
func (Plugin) Read(ctx context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
	if err := ctx.Err(); err != nil {
		return resource.ReadResponse{}, err
	}
	path := req.ID
	if path == "" {
		if !req.Inputs.Known("path") {
			return resource.ReadResponse{}, resource.ErrNotRecognizable
		}
		p, err := absPath(req.Inputs)
		if err != nil || p == "" {
			return resource.ReadResponse{}, resource.ErrNotRecognizable
		}
		path = p
	}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return resource.ReadResponse{}, nil
	}
	if err != nil {
		return resource.ReadResponse{}, fmt.Errorf("reading %s %s: %w", Type, path, err)
	}
	if !info.Mode().IsRegular() {
		return resource.ReadResponse{}, fmt.Errorf("reading %s %s: it is no longer a regular file", Type, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return resource.ReadResponse{}, fmt.Errorf("reading %s %s: %w", Type, path, err)
	}
	secret := req.Inputs.IsSecret("content") || req.Outputs.IsSecret("content")
	mode := formatMode(uint32(info.Mode().Perm()))
	inputs := req.Inputs.Copy(4)
	if c, _ := req.Inputs.String("content", ""); c != string(data) {
		inputs["content"] = wrap(string(data), secret)
	}
	if m, _ := req.Inputs.String("mode", DefaultMode); m != mode {
		inputs["mode"] = mode
	}
	outs := inputs.Copy(4)
	outs["content"] = wrap(string(data), secret)
	outs["mode"] = mode
	outs["path"] = path
	outs["sha256"] = wrap(digest(data), secret)
	return resource.ReadResponse{ID: path, Inputs: inputs, Outputs: outs}, nil
}

// Delete removes the file; one already gone is fine. Parent folders stay.
func (Plugin) Delete(ctx context.Context, req resource.DeleteRequest) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if req.ID == "" {
		return fmt.Errorf("deleting %s %s: the resource has no ID (its path)", Type, req.URN)
	}
	if err := os.Remove(req.ID); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("deleting %s %s: %w", Type, req.ID, err)
	}
	atomicfile.SweepFor(req.ID)
	return nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func wrap(v any, secret bool) any {
	if secret {
		return resource.Secret{Element: v}
	}
	return v
}
