// Package file is the resource plugin for local files. Pulumi has no
// equivalent provider, so the type token is this project's own:
// file:index:File, in Pulumi's package:module:Type form.
//
// Inputs: path (required; absolute, or relative to the working directory of
// the process), content (a string, possibly a secret; default empty), mode
// (octal permission bits as a string, default "0644"). Outputs: path
// (absolute), content, mode and sha256 (hex of the content). When content is
// a secret, the outputs content and sha256 are secrets too. The ID is the
// absolute path.
//
// A change of path replaces the file; a change of content or mode rewrites it
// in place. Files are written atomically (a temporary file in the same
// folder, then a rename) and missing parent folders are created; an existing
// file at the path is overwritten. Refresh notices edits (Read returns the
// content actually on disk) and deletion (Read returns no ID).
package file

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/runnerhq/runner/engine/resource"
)

// Type is the type token of a file.
const Type = "file:index:File"

// DefaultMode is the mode of a file whose inputs do not set one.
const DefaultMode = "0644"

// Plugin manages file:index:File resources. It holds no state and is safe
// for concurrent use (two resources must not share a path).
type Plugin struct{}

var _ resource.Plugin = Plugin{}

// Package returns "file".
func (Plugin) Package() string { return "file" }

// Check validates path, content and mode and fills the default mode.
func (Plugin) Check(_ context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	if req.Type != Type {
		return nil, errUnknownType(req.Type)
	}
	news := req.News.Copy(4)
	if err := checkInputs(news); err != nil {
		return nil, fmt.Errorf("checking %s: %w", Type, err)
	}
	return news, nil
}

func checkInputs(m resource.PropertyMap) error {
	if v, ok := m["path"]; !ok || v == nil {
		return errors.New(`property "path" is required: where to write the file`)
	}
	if m.Known("path") {
		p, err := m.String("path", "")
		if err != nil {
			return err
		}
		if p == "" {
			return errors.New(`property "path" must not be empty`)
		}
	}
	if m.Known("content") {
		if _, err := m.String("content", ""); err != nil {
			return err
		}
	}
	if !m.Known("mode") {
		return nil
	}
	s, err := m.String("mode", DefaultMode)
	if err != nil {
		return err
	}
	mode, err := parseMode(s)
	if err != nil {
		return err
	}
	m["mode"] = formatMode(mode)
	return nil
}

func parseMode(s string) (uint32, error) {
	n, err := strconv.ParseUint(s, 8, 32)
	if err != nil || n > 0o777 {
		return 0, fmt.Errorf(`property "mode" must be octal permission bits such as "0644", not %q`, s)
	}
	return uint32(n), nil
}

func formatMode(m uint32) string { return fmt.Sprintf("%04o", m) }

// Diff makes a change of path a replacement and a change of content or mode
// an update. A relative path that now resolves elsewhere also replaces.
func (Plugin) Diff(_ context.Context, req resource.DiffRequest) (resource.DiffResponse, error) {
	changed := resource.DiffKeys(req.OldInputs, req.NewInputs, req.IgnoreChanges)
	resp := resource.DiffResponse{Changed: changed}
	for _, k := range changed {
		if k == "path" {
			resp.Replaces = append(resp.Replaces, k)
		}
	}
	if len(resp.Replaces) == 0 && req.ID != "" && req.NewInputs.Known("path") {
		if p, err := absPath(req.NewInputs); err == nil && p != req.ID {
			resp.Changed = appendMissing(resp.Changed, "path")
			resp.Replaces = []string{"path"}
		}
	}
	return resp, nil
}

func appendMissing(keys []string, k string) []string {
	for _, x := range keys {
		if x == k {
			return keys
		}
	}
	keys = append(keys, k)
	slices.Sort(keys)
	return keys
}

func errUnknownType(t string) error {
	return fmt.Errorf("the file plugin has no resource type %q; it has %s", t, Type)
}

// absPath resolves the input path against the working directory.
func absPath(in resource.PropertyMap) (string, error) {
	p, err := in.String("path", "")
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("resolving the file path %s: %w", p, err)
	}
	return abs, nil
}
