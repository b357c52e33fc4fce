package pulumiproject

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// yamlTemplates are the files Pulumi YAML reads a program from, in the
// order its host looks for them in the program's folder.
var yamlTemplates = []string{"Main.json", "Main.yaml", "Pulumi.yaml"}

// CheckYAMLTemplate refuses, before the program runs, what the Pulumi YAML
// host refuses in the template of a yaml project's program: an alias
// (*name) anywhere in it. Each is an *Error with its file and line.
func CheckYAMLTemplate(prog Program) error {
	for _, name := range yamlTemplates {
		file := filepath.Join(prog.Pwd, name)
		data, err := boundedfile.ReadFile(file, boundedfile.Project)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			return err
		case name == "Main.json":
			return nil // JSON has no aliases
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return yamlError(file, err)
		}
		var errs []error
		walkAliases(&doc, func(n *yaml.Node) {
			errs = append(errs, &Error{File: file, Line: n.Line, Msg: fmt.Sprintf(
				"the alias *%s: Pulumi YAML does not support aliases (its host refuses them); write the value out here", n.Value)})
		})
		return errors.Join(errs...)
	}
	return nil
}

// walkAliases calls found for each alias node under n, in file order.
func walkAliases(n *yaml.Node, found func(*yaml.Node)) {
	if n.Kind == yaml.AliasNode {
		found(n)
		return
	}
	for _, c := range n.Content {
		walkAliases(c, found)
	}
}
