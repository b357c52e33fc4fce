// Package ecr is the aws provider's container registry: MARA's repository
// for the ingress controller's image, scanned on push. runner deploys a
// published image and builds none, so the repository is there for images
// you push yourself; it is deleted on destroy even when it holds images
// (MARA's issue #203: destroy failed on a repository that did).
package ecr

import (
	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/projects/aws/awsenv"
)

const repositoryType = "aws:ecr/repository:Repository"

// Program declares the repository. Outputs: repository_url,
// repository_name, registry_id.
func Program(ctx *engine.Context) error {
	name := awsenv.RepositoryName(ctx.Stack())
	repo := ctx.Resource(repositoryType, "ingress-controller", engine.Inputs{
		"name":                       name,
		"imageTagMutability":         "MUTABLE",
		"forceDelete":                true,
		"imageScanningConfiguration": map[string]any{"scanOnPush": true},
		"tags":                       awsenv.Tags(ctx, name, nil),
	})
	ctx.Export("repository_url", repo.Output("repositoryUrl"))
	ctx.Export("repository_name", repo.Output("name"))
	ctx.Export("registry_id", repo.Output("registryId"))
	return nil
}
