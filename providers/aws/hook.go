package aws

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
)

// updateKubeconfig is the eks project's on_success hook, as in MARA: it
// adds the new cluster to the user's kubeconfig with
// `aws [--region R] [--profile P] eks update-kubeconfig --name CLUSTER`.
func updateKubeconfig(ctx context.Context, in providers.HookInput) error {
	cluster, err := in.Outputs.String("cluster_name", "")
	if err != nil || cluster == "" {
		return fmt.Errorf("the eks project exported no cluster_name, so the kubeconfig cannot be updated")
	}
	args := append(cliFlags(in.Config), "eks", "update-kubeconfig", "--name", cluster)
	cmd := exec.CommandContext(ctx, "aws", args...)
	if in.Env != nil {
		cmd.Env = environ(in.Env)
		if path, ok := in.Env["PATH"]; ok {
			if exe, err := lookPath("aws", path); err == nil {
				cmd.Path, cmd.Err = exe, nil
			}
		}
	}
	cmd.Stdout, cmd.Stderr = in.Log, in.Log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("updating the kubeconfig for EKS cluster %s with `aws %s`: %w", cluster, strings.Join(args, " "), err)
	}
	return nil
}

// cliFlags returns the aws CLI's --region and --profile flags from the
// stack config (MARA's "none" profile means no profile).
func cliFlags(cfg map[string]any) []string {
	var out []string
	if r := configString(cfg, "aws:region"); r != "" {
		out = append(out, "--region", r)
	}
	if p := configString(cfg, "aws:profile"); p != "" && p != "none" {
		out = append(out, "--profile", p)
	}
	return out
}

func configString(cfg map[string]any, key string) string {
	v, _ := resource.Unsecret(cfg[key])
	s, _ := v.(string)
	return s
}

func environ(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// lookPath finds an executable in the folders of path (the run's PATH,
// which may differ from runner's own).
func lookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		exe := filepath.Join(dir, name)
		if fi, err := os.Stat(exe); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return exe, nil
		}
	}
	return "", fmt.Errorf("%s is not in PATH %s", name, path)
}
