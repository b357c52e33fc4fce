package config

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// DuplicateKeyError is a key written twice in one mapping of a file. Which
// copy counts would depend on the reader, so the file is refused.
type DuplicateKeyError struct {
	File string
	// Key is the key as a path from the top of the file, such as
	// config.app:data.port.
	Key         string
	First, Then int // the lines of the two copies
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("%s:%d: the key %s is written twice, on lines %d and %d; remove one of them (the file was left unchanged)",
		e.File, e.Then, e.Key, e.First, e.Then)
}

// checkDuplicates walks every mapping under n (not through aliases) and
// returns the first key written twice in the same mapping, in file order.
func checkDuplicates(file string, n *yaml.Node, path string) error {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for i, c := range n.Content {
			p := path
			if n.Kind == yaml.SequenceNode {
				p = fmt.Sprintf("%s[%d]", path, i)
			}
			if err := checkDuplicates(file, c, p); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		seen := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			name := keyPath(path, k.Value)
			if k.Kind == yaml.ScalarNode && k.Value != "<<" {
				if first, ok := seen[k.Value]; ok {
					return &DuplicateKeyError{File: file, Key: name, First: first, Then: k.Line}
				}
				seen[k.Value] = k.Line
			}
			if err := checkDuplicates(file, n.Content[i+1], name); err != nil {
				return err
			}
		}
	}
	return nil
}

// keyPath names key under path; config keys are named alone (app:port).
func keyPath(path, key string) string {
	if path == "" || path == "config" {
		return key
	}
	return path + "." + key
}
