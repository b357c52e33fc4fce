package clouds

import "testing"

// BenchmarkAWSUp measures `runner up -p aws --yes` on a fresh stack with
// MARA's example config against the fake plugins: 13 projects, about 85
// resources, two plugin processes (the numbers are in docs/benchmarks.md).
// The workspace is made outside the timer.
func BenchmarkAWSUp(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		e := maraWorkspace(b)
		b.StartTimer()
		e.ok("-p", "aws", "up", "--yes")
	}
}

// BenchmarkAWSNoopUp measures a second `up -p aws --yes` that changes
// nothing: every project planned against its state, every resource
// diffed by its plugin.
func BenchmarkAWSNoopUp(b *testing.B) {
	e := maraWorkspace(b)
	e.ok("-p", "aws", "up", "--yes")
	for b.Loop() {
		e.ok("-p", "aws", "up", "--yes")
	}
}

// BenchmarkAWSPreview measures `runner preview -p aws` of the whole graph
// on a fresh stack (unknowns flowing between projects).
func BenchmarkAWSPreview(b *testing.B) {
	e := maraWorkspace(b)
	for b.Loop() {
		e.ok("-p", "aws", "preview")
	}
}

// BenchmarkCloudUp measures `runner up --yes` of -p do and -p linode on a
// fresh stack with MARA's example config (answered) against the fake
// plugins; the workspace is made outside the timer.
func BenchmarkCloudUp(b *testing.B) {
	for _, p := range []string{"do", "linode"} {
		b.Run(p, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				e := cloudWorkspace(b, p)
				b.StartTimer()
				e.ok("-p", p, "up", "--yes")
			}
		})
	}
}

// BenchmarkCloudNoopUp measures a second up of -p do and -p linode that
// changes nothing.
func BenchmarkCloudNoopUp(b *testing.B) {
	for _, p := range []string{"do", "linode"} {
		b.Run(p, func(b *testing.B) {
			e := cloudWorkspace(b, p)
			e.ok("-p", p, "up", "--yes")
			for b.Loop() {
				e.ok("-p", p, "up", "--yes")
			}
		})
	}
}

// BenchmarkCloudPreview measures preview of -p do and -p linode on a
// fresh stack.
func BenchmarkCloudPreview(b *testing.B) {
	for _, p := range []string{"do", "linode"} {
		b.Run(p, func(b *testing.B) {
			e := cloudWorkspace(b, p)
			for b.Loop() {
				e.ok("-p", p, "preview")
			}
		})
	}
}

// cloudWorkspace is the answered workspace of provider p (do or linode),
// its token in the environment.
func cloudWorkspace(b *testing.B, p string) *env {
	if p == "do" {
		return doWorkspace(b, true)
	}
	return linodeWorkspace(b, true)
}
