package cluster

import (
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine"
)

// HarborConfigImage is the image of the harbor-configuration Job: curl,
// pinned.
const HarborConfigImage = "curlimages/curl:8.11.1"

// harborConfigScript is what the harbor-configuration Job runs, as MARA's
// harbor-configuration project did from the user's machine: wait until
// every component of Harbor reports healthy (60 tries RETRY_SECONDS
// apart: 10 minutes), then make the default project "library" private.
// HARBOR_API is Harbor's API inside the cluster (the harbor-core
// Service), so nothing depends on DNS or the ingress; the admin password
// comes from a Secret through the environment and reaches curl on its
// standard input, never its arguments.
const harborConfigScript = `set -eu
api=$HARBOR_API
tries=0
until curl -fsS --max-time 10 "$api/health" >/tmp/health 2>/tmp/err && ! grep -q unhealthy /tmp/health; do
  tries=$((tries+1))
  if [ "$tries" -ge 60 ]; then
    echo "Harbor is not healthy after $tries tries: $(cat /tmp/health /tmp/err 2>/dev/null)" >&2
    exit 1
  fi
  sleep "$RETRY_SECONDS"
done
echo "Harbor is up; making the project library private"
pw=$(printf '%s' "$HARBOR_PASSWORD" | sed 's/[\\"]/\\&/g')
printf 'user = "admin:%s"\n' "$pw" | curl -fsS --max-time 30 -K - -X PUT -H 'Content-Type: application/json' \
  -d '{"public":"false"}' "$api/projects/library/metadatas/public"
echo "done"
`

// HarborConfiguration is the harbor-configuration project of the linode
// provider: MARA's configuration of the Harbor registry once it runs (the
// default project "library" made private), done by a Kubernetes Job in
// Harbor's namespace, through the kubernetes plugin, which waits for it
// to complete (20 minutes at most: Harbor may take 10 to become healthy).
// The admin password is in a Secret of its own. Outputs:
// job, namespace.
func HarborConfiguration(ctx *engine.Context) error {
	ns := ctx.StackReference("harbor").Output(NamespaceOutput)
	admin, ok := ctx.Config(HarborAdminKey)
	if !ok {
		return fmt.Errorf("%s is not set: give it with `runner config set --secret %s`", HarborAdminKey, HarborAdminKey)
	}
	p := Provider(ctx)
	sec := ctx.Resource("kubernetes:core/v1:Secret", "harbor-configuration", engine.Inputs{
		"metadata":   map[string]any{"name": "harbor-configuration", "namespace": ns},
		"type":       "Opaque",
		"stringData": map[string]any{"password": engine.Secret(admin)},
	}, engine.Provider(p))
	job := ctx.Resource("kubernetes:batch/v1:Job", "harbor-configuration", engine.Inputs{
		"metadata": map[string]any{"name": "harbor-configuration", "namespace": ns},
		"spec": map[string]any{
			"backoffLimit": 2,
			"template": map[string]any{
				"spec": map[string]any{
					"restartPolicy": "Never",
					"containers": []any{map[string]any{
						"name": "configure", "image": HarborConfigImage,
						"command": []any{"/bin/sh", "-c", harborConfigScript},
						"env": []any{
							map[string]any{"name": "HARBOR_API", "value": ns.Apply(func(v any) (any, error) {
								return fmt.Sprintf("http://harbor-core.%v.svc/api/v2.0", v), nil
							})},
							map[string]any{"name": "RETRY_SECONDS", "value": "10"},
							map[string]any{"name": "HARBOR_PASSWORD", "valueFrom": map[string]any{
								"secretKeyRef": map[string]any{"name": nameOf(sec), "key": "password"}}},
						},
					}},
				},
			},
		},
	}, engine.Provider(p), engine.Timeouts(engine.CustomTimeouts{Create: 20 * time.Minute, Update: 20 * time.Minute}))
	ctx.Export("job", nameOf(job))
	ctx.Export(NamespaceOutput, ns)
	return nil
}
