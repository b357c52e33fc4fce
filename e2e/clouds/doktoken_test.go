package clouds

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDOKSExpiredTokenRenewedByUpRefresh: DigitalOcean's kubeconfig
// tokens last 7 days. An up whose DOKS token has expired says so after
// merging the kubeconfig, naming the command that renews it; that command
// (up --refresh: the digitalocean plugin's read fetches new credentials
// once the old ones expired) merges a new token and warns no more. Before,
// the merged token silently stopped working after a week.
func TestDOKSExpiredTokenRenewedByUpRefresh(t *testing.T) {
	e := doWorkspace(t, true)
	base := slices.Clone(e.extra)
	e.extra = append(e.extra, "FAKECLOUD_DOKS_TOKEN_TTL=-1h") // DigitalOcean hands out tokens that have already expired
	r := e.ok("-p", "do", "up", "--yes")
	warn := regexp.MustCompile(`warning: the DOKS cluster's kubeconfig token expired at \S+ \(DigitalOcean's tokens last 7 days\).*run ` + "`" + `(.*) -p do up --refresh` + "`")
	if !warn.MatchString(r.Stdout + r.Stderr) {
		t.Fatalf("an up with an expired DOKS token does not say so and name the command:\n%s", r)
	}
	old := mergedToken(t, e.kubeconfig)

	e.extra = base
	r = e.ok("-p", "do", "up", "--refresh", "--yes")
	if strings.Contains(r.Stdout+r.Stderr, "kubeconfig token expired") {
		t.Errorf("up --refresh still warns of an expired token:\n%s", r)
	}
	renewed := mergedToken(t, e.kubeconfig)
	if renewed == old || !strings.HasPrefix(renewed, "dop_v1_") {
		t.Fatalf("up --refresh merged the token %q (before: %q), want a new one", renewed, old)
	}
	for _, c := range e.ofType("digitalocean:index/kubernetesCluster:KubernetesCluster") {
		if !strings.Contains(fmt.Sprint(c.Outputs["kubeConfigs"]), renewed) {
			t.Errorf("the merged token is not the cluster's current one")
		}
	}
	e.secondUpChangesNothing("do")
}

// mergedToken returns the static token of the do-sfo3-mara-dev user of the
// kubeconfig at path.
func mergedToken(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)name: do-sfo3-mara-dev-admin\s+user:\s+token: (\S+)`).FindSubmatch(data)
	if m == nil {
		t.Fatalf("the kubeconfig has no token for do-sfo3-mara-dev-admin:\n%s", data)
	}
	return string(m[1])
}
