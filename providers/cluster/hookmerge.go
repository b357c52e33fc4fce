package cluster

import (
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
	projcluster "github.com/runnerhq/runner/projects/cluster"
	"github.com/runnerhq/runner/providers"
)

// MergeOutput merges the kubeconfig output of a hook's project, decoded
// by decode, into the user's kubeconfig and logs what it did. what names
// the cluster in messages.
func MergeOutput(in providers.HookInput, what string, decode func(string) ([]byte, error)) error {
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
	path, err := KubeconfigPath(in.Env, what)
	if err != nil {
		return err
	}
	change, err := MergeKubeconfig(path, e)
	if err != nil {
		return err
	}
	LogChange(in.Log, change, e, path)
	return nil
}
