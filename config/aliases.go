package config

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// maxExpanded bounds how many values a stack config may hold once its
// aliases (*name) are expanded: a few lines of nested aliases can stand for
// billions of values, which would stall every command that reads them.
const maxExpanded = 100_000

// checkAliases refuses a document whose aliases expand beyond maxExpanded
// values or refer to the value that holds them.
func checkAliases(file string, root *yaml.Node) error {
	sizes := map[*yaml.Node]int{}
	var firstAlias *yaml.Node
	var size func(n *yaml.Node) (int, error)
	size = func(n *yaml.Node) (int, error) {
		if s, ok := sizes[n]; ok {
			if s < 0 {
				return 0, &ParseError{File: file, Line: n.Line, Msg: "this value contains an alias of itself; write the value out instead"}
			}
			return s, nil
		}
		sizes[n] = -1 // in progress
		total := 1
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			if firstAlias == nil {
				firstAlias = n
			}
			s, err := size(n.Alias)
			if err != nil {
				return 0, err
			}
			total += s
		}
		for _, c := range n.Content {
			s, err := size(c)
			if err != nil {
				return 0, err
			}
			if total += s; total > maxExpanded {
				break
			}
		}
		total = min(total, maxExpanded+1)
		sizes[n] = total
		return total, nil
	}
	total, err := size(root)
	if err != nil {
		return err
	}
	if total > maxExpanded && firstAlias != nil {
		return &ParseError{File: file, Line: firstAlias.Line, Msg: fmt.Sprintf("the aliases (*%s and others) expand the file to more than %d values; write the values out instead", firstAlias.Value, maxExpanded)}
	}
	return nil
}
