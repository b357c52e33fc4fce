package clouds

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doLinodeKills is how many SIGKILLs must land inside a first up of -p do
// and of -p linode (fewer than aws's 30: the machine is shared, and the
// cut-short creates of each cloud type are also made certain below).
const doLinodeKills = 15

// TestKillDOAndLinodeConverge is TestKillAnywhereConverges for -p do and
// -p linode: SIGKILL at random moments of a first up, then the next up
// exits 0 with nothing pending and the fake clouds hold each state
// resource once, with no second create in their call logs. The fakes read
// a resource by its ID only, as the real digitalocean and linode plugins
// do, so a create cut short after the cloud made a DOKS or LKE cluster is
// found by its name through the plugin's own function.
func TestKillDOAndLinodeConverge(t *testing.T) {
	for _, c := range []struct {
		provider string
		setup    func(testing.TB) *env
	}{
		{"do", func(t testing.TB) *env { return doWorkspace(t, true) }},
		{"linode", func(t testing.TB) *env { return linodeWorkspace(t, true) }},
	} {
		t.Run(c.provider, func(t *testing.T) { killRounds(t, c.provider, c.setup(t), doLinodeKills) })
	}
}

// TestCutShortCloudCreatesAreAdopted: for each digitalocean and linode
// type the programs create, the plugin stops after the cloud made the
// object and before it answered (as when runner is killed then); the next
// up adopts that object (by its name, or through getKubernetesCluster,
// getRecords or getLkeClusters) and converges with nothing made twice.
// Before, a cluster's interrupted create was read back by URN, which the
// real plugins cannot do.
func TestCutShortCloudCreatesAreAdopted(t *testing.T) {
	for _, c := range []struct{ provider, typ string }{
		{"do", "digitalocean:index/kubernetesCluster:KubernetesCluster"},
		{"do", "digitalocean:index/containerRegistry:ContainerRegistry"},
		{"do", "digitalocean:index/dnsRecord:DnsRecord"},
		{"do", "digitalocean:index/containerRegistryDockerCredentials:ContainerRegistryDockerCredentials"},
		{"linode", "linode:index/lkeCluster:LkeCluster"},
	} {
		t.Run(c.typ[strings.LastIndex(c.typ, ":")+1:], func(t *testing.T) {
			t.Parallel()
			e := doOrLinodeWorkspace(t, c.provider)
			e.extra = append(e.extra, "FAKECLOUD_DIE_AFTER_CREATE="+c.typ)
			e.fails(1, "-p", c.provider, "up", "--yes")
			if n := len(e.ofType(c.typ)); n != 1 {
				t.Fatalf("the cut-short create left %d of %s in the fake cloud, want 1", n, c.typ)
			}
			r := e.ok("-p", c.provider, "up", "--yes")
			if out := r.Stdout + r.Stderr; !strings.Contains(out, "did happen; the resource is adopted into the state") {
				t.Errorf("the next up does not say it adopted the %s:\n%s", c.typ, out)
			}
			e.converged(c.provider, "after a create cut short")
			e.secondUpChangesNothing(c.provider)
		})
	}
}

// TestCutShortCreateNotAdoptedElsewhere: after a DOKS create cut short,
// the cluster found by that name is in another region (someone changed
// it by hand, or it was never this stack's): the next up does not adopt
// it (its region differs, so adopting would replace it: delete it) and
// creates nothing; it fails naming the cluster and what to do, and the
// cluster stays.
func TestCutShortCreateNotAdoptedElsewhere(t *testing.T) {
	e := doWorkspace(t, true)
	const typ = "digitalocean:index/kubernetesCluster:KubernetesCluster"
	e.extra = append(e.extra, "FAKECLOUD_DIE_AFTER_CREATE="+typ)
	e.fails(1, "-p", "do", "up", "--yes")
	files, _ := filepath.Glob(filepath.Join(e.cloud, "digitalocean", "*.json"))
	moved := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r map[string]any
		if json.Unmarshal(data, &r) != nil || r["type"] != typ {
			continue
		}
		r["outputs"].(map[string]any)["region"] = "nyc1"
		data, _ = json.Marshal(r)
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		moved++
	}
	if moved != 1 {
		t.Fatalf("%d DOKS clusters in the fake cloud, want the 1 the cut-short create made", moved)
	}
	r := e.fails(1, "-p", "do", "up", "--yes")
	if !strings.Contains(r.Stdout+r.Stderr, "the DOKS cluster mara-dev exists in region nyc1, not sfo3, so it is not the one this stack was making") {
		t.Errorf("the up does not name the cluster found elsewhere:\n%s", r)
	}
	if n := len(e.ofType(typ)); n != 1 {
		t.Errorf("%d DOKS clusters in the fake cloud after the refused up, want the 1 left alone", n)
	}
}

// TestCutShortCreateThatDidNotHappenIsMadeAgain: a DOKS or LKE create cut
// short before the cloud made the cluster (here: made, then deleted by
// hand) is looked up, found absent (getKubernetesCluster's not-found
// error, getLkeClusters' empty list) and made again once.
func TestCutShortCreateThatDidNotHappenIsMadeAgain(t *testing.T) {
	for _, c := range []struct{ provider, typ string }{
		{"do", "digitalocean:index/kubernetesCluster:KubernetesCluster"},
		{"linode", "linode:index/lkeCluster:LkeCluster"},
	} {
		t.Run(c.provider, func(t *testing.T) {
			t.Parallel()
			e := doOrLinodeWorkspace(t, c.provider)
			e.extra = append(e.extra, "FAKECLOUD_DIE_AFTER_CREATE="+c.typ)
			e.fails(1, "-p", c.provider, "up", "--yes")
			if n := e.removeFromCloud(c.typ, ""); n != 1 {
				t.Fatalf("%d clusters in the fake cloud, want the 1 the cut-short create made", n)
			}
			r := e.ok("-p", c.provider, "up", "--yes")
			if !strings.Contains(r.Stdout+r.Stderr, "did not happen; it will be created again") {
				t.Errorf("the up does not say the interrupted create did not happen:\n%s", r)
			}
			e.converged(c.provider, "after a create that did not happen")
		})
	}
}

// doOrLinodeWorkspace is a workspace of stack dev ready for `up -p
// provider` (do or linode), its token in the environment.
func doOrLinodeWorkspace(t testing.TB, provider string) *env {
	t.Helper()
	if provider == "do" {
		return doWorkspace(t, true)
	}
	return linodeWorkspace(t, true)
}
