package cluster

import (
	"fmt"

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
	LogChange(in.Log, change, e, path)
	return nil
}
