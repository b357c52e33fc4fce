package backend

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// uniformSnapshot is statetest.Snapshot with every resource of the same
// encoded size (apart from the first custom one, which has no dependency).
func uniformSnapshot(n int) *state.Snapshot {
	snap := statetest.Snapshot("network", "dev", n)
	for _, r := range snap.Resources[2:] {
		r.Inputs["size"], r.Outputs["size"] = float64(7), float64(7)
	}
	return snap
}

// openBench commits a stack of n resources and opens a journal on it.
func openBench(b *testing.B, n int) (*state.Snapshot, *folderJournal) {
	b.Helper()
	f := openTemp(b)
	c := statetest.NewCrypter(1)
	commit(b, f, "network", "dev", uniformSnapshot(n), c)
	base, err := f.Load(context.Background(), "network", "dev", c)
	if err != nil {
		b.Fatal(err)
	}
	j, err := f.OpenJournal(context.Background(), "network", "dev", base, c)
	if err != nil {
		b.Fatal(err)
	}
	return base, j.(*folderJournal)
}

// BenchmarkJournalBytesPerStep measures the journal bytes one step (begin
// and success entries of an update of one resource) writes, for stacks of
// 1,000 and 10,000 resources: the figure must not grow with the stack.
func BenchmarkJournalBytesPerStep(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			base, j := openBench(b, n)
			things := base.Resources[3:] // every one depends on the one before
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				old := things[(i*7919)%len(things)]
				next := *old
				next.Outputs = make(map[string]any, len(old.Outputs))
				for k, v := range old.Outputs {
					next.Outputs[k] = v
				}
				next.Outputs["size"] = float64(8)
				if err := j.Begin(ctx, Entry{Seq: int64(i + 1), Op: "update", Old: old, New: &next}); err != nil {
					b.Fatal(err)
				}
				if err := j.End(ctx, Entry{Seq: int64(i + 1), Kind: EntrySuccess, Op: "update", Old: old, New: &next}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(j.bytes.Load())/float64(b.N), "bytes/step")
			crash(j)
		})
	}
}

// BenchmarkJournalGroupCommit runs many concurrent Begin calls and reports
// how many fsyncs each entry cost (1 would mean no sharing).
func BenchmarkJournalGroupCommit(b *testing.B) {
	ctx := context.Background()
	_, j := openBench(b, 10)
	r := statetest.Thing("network", "dev", 99, time.Now())
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := j.Begin(ctx, Entry{Seq: 1, Op: "create", New: r}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(j.syncs.Load())/float64(j.entries.Load()), "fsyncs/entry")
	crash(j)
}

// BenchmarkLoadCommit10000 measures a Load and a Commit of a stack of
// 10,000 resources (each with two secrets).
func BenchmarkLoadCommit10000(b *testing.B) {
	ctx := context.Background()
	f := openTemp(b)
	c := statetest.NewCrypter(1)
	commit(b, f, "network", "dev", uniformSnapshot(10000), c)
	b.Run("Load", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := f.Load(ctx, "network", "dev", c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Commit", func(b *testing.B) {
		snap, err := f.Load(ctx, "network", "dev", c)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < b.N; i++ {
			j, err := f.OpenJournal(ctx, "network", "dev", snap, c)
			if err != nil {
				b.Fatal(err)
			}
			if err := j.Commit(ctx, snap, HistoryRecord{Kind: "update"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMigrate10k moves a folder in runner's old layout holding one
// project of 10,000 resources (and its history) to Pulumi's layout: the
// one-time cost of the first command on such a workspace.
func BenchmarkMigrate10k(b *testing.B) {
	ctx := context.Background()
	c := statetest.NewCrypter(1)
	export, err := state.Marshal(ctx, statetest.Snapshot("network", "dev", 10_000), c)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(export)))
	for b.Loop() {
		b.StopTimer()
		f, err := Open("file://" + b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		f.Notices = io.Discard
		dir := filepath.Join(f.Root, "stacks", "dev", "network")
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, "snapshot.json"), export, 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := f.ready(); err != nil {
			b.Fatal(err)
		}
	}
}
