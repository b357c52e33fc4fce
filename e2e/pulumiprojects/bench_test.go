package pulumiprojects

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkYAML1000 measures the whole runner process on a Pulumi YAML
// program of 1,000 testprov resources (folder backend): create, no-op
// preview, no-op up and destroy, each reported in seconds (the issue's
// targets: 2.5, 1.5, 1.5 and 1.5 s).
func BenchmarkYAML1000(b *testing.B) {
	var body strings.Builder
	body.WriteString("name: big\nruntime: yaml\nresources:\n")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&body, "  r%d:\n    type: testprov:index:Thing\n    properties:\n      value: v%d\n", i, i)
	}
	phases := []struct {
		name string
		args []string
	}{
		{"create-s", []string{"up", "--yes"}},
		{"noop-preview-s", []string{"preview"}},
		{"noop-up-s", []string{"up", "--yes"}},
		{"destroy-s", []string{"destroy", "--yes"}},
	}
	sums := make([]time.Duration, len(phases))
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w := newWS(b)
		store := w.withHosts(b, true)
		w.write(map[string]string{"big/Pulumi.yaml": body.String(), "runner.yaml": "providers:\n  e:\n    projects:\n      big: {path: big}\n"})
		w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
		b.StartTimer()
		for j, p := range phases {
			start := time.Now()
			w.ok(append([]string{"-p", "e", "-s", "dev"}, p.args...)...)
			sums[j] += time.Since(start)
		}
	}
	for j, p := range phases {
		b.ReportMetric(sums[j].Seconds()/float64(b.N), p.name)
	}
}
