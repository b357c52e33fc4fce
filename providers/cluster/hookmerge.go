package cluster

import (
	"fmt"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/runnerhq/runner/internal/boundedfile"

	"github.com/runnerhq/runner/engine/resource"
	projcluster "github.com/runnerhq/runner/projects/cluster"
	"github.com/runnerhq/runner/providers"
)

// MergeOutput merges the kubeconfig output of a hook's project, decoded
// by decode, into the user's kubeconfig (KubeconfigFor) and makes its
// context current, even when its entries were there already, as MARA's
// update_kubeconfig did; it logs what it did. what names the cluster in
// messages.
func MergeOutput(in providers.HookInput, what string, decode func(string) ([]byte, error)) error {
	return mergeOutput(in, what, decode, true)
}

// MergeOutputOnChange is MergeOutput that leaves the kubeconfig, and its
// current context, as they are when the cluster's entries are there
// already, as MARA's do hook did (it ran `doctl kubernetes cluster config
// save`, which makes the context current, only for a cluster kubectl did
// not know): the context is made current when it is added or its entries
// change (a renewed token).
func MergeOutputOnChange(in providers.HookInput, what string, decode func(string) ([]byte, error)) error {
	return mergeOutput(in, what, decode, false)
}

func mergeOutput(in providers.HookInput, what string, decode func(string) ([]byte, error), current bool) error {
	v, _ := resource.Unsecret(in.Outputs[projcluster.KubeconfigOutput])
	s, _ := v.(string)
	if s == "" {
		return fmt.Errorf("the %s project exported no kubeconfig, so the user's kubeconfig cannot be updated", in.Project)
	}
	raw, err := decode(s)
	if err != nil {
		return fmt.Errorf("the kubeconfig of the %s: %w", what, err)
	}
	e, err := EntryOf(raw, "the "+what)
	if err != nil {
		return err
	}
	path, err := KubeconfigFor(in.Env, what, e)
	if err != nil {
		return err
	}
	change, err := Merge(path, e, current)
	if err != nil {
		return err
	}
	if change != Same || current {
		// kubectl takes the current context from the first file of
		// $KUBECONFIG that sets one: set it there too.
		at, err := currentContextFile(in.Env, path)
		if err != nil {
			return err
		}
		if at != "" {
			made, err := setCurrentContext(at, e.Context)
			if err != nil {
				return err
			}
			if made {
				fmt.Fprintf(in.Log, "Set the current context to %s in %s, where kubectl reads it first\n", e.Context, at)
			}
		}
	}
	LogChange(in.Log, change, e, path)
	return nil
}

// currentContextFile is the file of $KUBECONFIG before chosen that sets
// a current context, which kubectl reads before chosen's ("" when none).
func currentContextFile(env map[string]string, chosen string) (string, error) {
	getenv := envGetter(env)
	for _, p := range filepath.SplitList(getenv("KUBECONFIG")) {
		if p == "" {
			continue
		}
		p = projcluster.ExpandHome(p, getenv("HOME"))
		if p == chosen {
			return "", nil
		}
		data, err := boundedfile.ReadFile(p, boundedfile.Kubeconfig)
		if err != nil {
			continue
		}
		var k struct {
			Current string `yaml:"current-context"`
		}
		if yaml.Unmarshal(data, &k) == nil && k.Current != "" {
			return p, nil
		}
	}
	return "", nil
}

// setCurrentContext makes name the current context of the kubeconfig at
// path, writing it only when it was not; made says it was written.
func setCurrentContext(path, name string) (made bool, err error) {
	path, err = linkTarget(path)
	if err != nil {
		return false, err
	}
	doc, err := readKubeconfig(path)
	if err != nil {
		return false, err
	}
	root := doc.Content[0]
	if n := lookup(root, "current-context"); n != nil && n.Value == name {
		return false, nil
	}
	setScalar(root, "current-context", name)
	return true, writeKubeconfig(path, doc)
}
