package resource

import (
	"context"
	"errors"
	"fmt"
)

// ReplaceOnly gives a plugin whose resources live only in the state and
// are never changed in place (random values, keys and certificates) the
// three methods such plugins share: Diff makes every changed input a
// replacement, Update is refused, and Delete has nothing outside the state
// to remove. A plugin embeds it.
type ReplaceOnly struct{}

// ErrReplaceOnly is the error of Update on a ReplaceOnly plugin.
var ErrReplaceOnly = errors.New("these resources cannot be updated in place; every input change replaces them")

// Diff reports every changed input as a replacement.
func (ReplaceOnly) Diff(_ context.Context, req DiffRequest) (DiffResponse, error) {
	changed := DiffKeys(req.OldInputs, req.NewInputs, req.IgnoreChanges)
	return DiffResponse{Changed: changed, Replaces: changed}, nil
}

// Update is never needed: Diff makes every change a replacement.
func (ReplaceOnly) Update(_ context.Context, req UpdateRequest) (UpdateResponse, error) {
	return UpdateResponse{}, fmt.Errorf("updating %s %s: %w", req.Type, req.URN, ErrReplaceOnly)
}

// Delete forgets the resource: nothing outside the state holds it.
func (ReplaceOnly) Delete(context.Context, DeleteRequest) error { return nil }
