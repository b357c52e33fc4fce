package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
)

func (f *Folder) tagsPath(stack string) string {
	return filepath.Join(f.stackDir(stack), "tags.json")
}

// Tags returns the stack's tags (empty when none are set).
func (f *Folder) Tags(_ context.Context, stack string) (map[string]string, error) {
	if err := f.checkStack(stack); err != nil {
		return nil, err
	}
	path := f.tagsPath(stack)
	data, err := readOptional(path)
	if err != nil {
		return nil, err
	}
	tags := map[string]string{}
	if data != nil {
		if err := json.Unmarshal(data, &tags); err != nil {
			return nil, fmt.Errorf("reading the tags %s: %w", path, err)
		}
	}
	return tags, nil
}

// SetTag sets one tag of the stack.
func (f *Folder) SetTag(ctx context.Context, stack, key, value string) error {
	if key == "" {
		return fmt.Errorf("setting a tag of stack %s: the tag name is empty", stack)
	}
	return f.editTags(ctx, stack, func(t map[string]string) { t[key] = value })
}

// RemoveTag removes one tag of the stack (removing a missing tag succeeds).
func (f *Folder) RemoveTag(ctx context.Context, stack, key string) error {
	return f.editTags(ctx, stack, func(t map[string]string) { delete(t, key) })
}

// editTags rewrites the tags file atomically (serialized in this process).
func (f *Folder) editTags(ctx context.Context, stack string, edit func(map[string]string)) error {
	f.tagsMu.Lock()
	defer f.tagsMu.Unlock()
	tags, err := f.Tags(ctx, stack)
	if err != nil {
		return err
	}
	edit(tags)
	data, err := json.MarshalIndent(tags, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the tags of stack %s: %w", stack, err)
	}
	return writeFileAtomic(f.tagsPath(stack), append(data, '\n'))
}
