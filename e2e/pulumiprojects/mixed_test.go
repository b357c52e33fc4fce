package pulumiprojects

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestMixedRuntimes runs one environment of the three runtimes in one up:
// a chain of each (independent, so side by side), and a reader of each
// chain in another runtime, after it.
func TestMixedRuntimes(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	w.project("yaml", "chain", "ychain", "ychain")
	w.project("ts", "chain", "tchain", "tchain")
	w.project("go", "chain", "progs/gchain", "gchain")
	w.project("ts", "reader", "treader", "treader")
	w.project("go", "reader", "progs/greader", "greader")
	w.project("yaml", "reader", "yreader", "yreader")
	w.write(map[string]string{"runner.yaml": `providers:
  e:
    projects:
      ychain: {path: ychain}
      tchain: {path: tchain}
      gchain: {path: progs/gchain}
      treader: {path: treader, dependsOn: [ychain]}
      greader: {path: progs/greader, dependsOn: [tchain]}
      yreader: {path: yreader, dependsOn: [gchain]}
`})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	for _, p := range []string{"ychain", "tchain", "gchain"} {
		w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", p+":token", secretToken)
		w.ok("-p", "e", "-s", "dev", "config", "set", p+":prefix", p)
	}
	w.ok("-p", "e", "-s", "dev", "config", "set", "treader:source", "ychain")
	w.ok("-p", "e", "-s", "dev", "config", "set", "greader:source", "tchain")
	w.ok("-p", "e", "-s", "dev", "config", "set", "yreader:source", "gchain")
	r := w.ok("-p", "e", "-s", "dev", "--json", "up", "--yes")
	start, done := map[string]time.Time{}, map[string]time.Time{}
	sc := bufio.NewScanner(strings.NewReader(r.Stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e struct {
			Type, Project string
			Time          time.Time
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Type {
		case "project-start":
			start[e.Project] = e.Time
		case "project-done":
			done[e.Project] = e.Time
		}
	}
	chains := []string{"ychain", "tchain", "gchain"}
	for _, a := range chains {
		for _, b := range chains {
			if a != b && !start[a].Before(done[b]) {
				t.Errorf("%s started after %s was done: independent projects did not run side by side", a, b)
			}
		}
	}
	for reader, chain := range map[string]string{"treader": "ychain", "greader": "tchain", "yreader": "gchain"} {
		if start[reader].Before(done[chain]) {
			t.Errorf("%s started before %s was done", reader, chain)
		}
		if got := w.outputs(reader)["got"]; got != chain+"-a-b-c" {
			t.Errorf("%s read %v from %s", reader, got, chain)
		}
	}
	if got := values(t, store); len(got) != 12 {
		t.Errorf("the store holds %d resources, want 12: %v", len(got), got)
	}
	w.ok("-p", "e", "-s", "dev", "destroy", "--yes")
	if got := values(t, store); len(got) != 0 {
		t.Errorf("after destroy the store holds %v", got)
	}
	noSecret(t, w.dir, []string{r.Stdout, r.Stderr})
}
