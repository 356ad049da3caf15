// Package testutil holds helpers shared by tests: locating the repository and
// its fixtures, and querying a dataset with the real embedded DuckDB.
package testutil

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"empties/internal/duck"
	"empties/internal/sqlfmt"
	"empties/internal/store"
)

// RepoRoot returns the directory holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// Path joins parts under the repository root.
func Path(t testing.TB, parts ...string) string {
	return filepath.Join(append([]string{RepoRoot(t)}, parts...)...)
}

// SharedCorpus returns the shared corpus of real inspect_ai test logs, which
// sits beside the repository (../shared/corpus/inspect-ai-tests). A missing
// corpus fails the test: it is part of what CI checks.
func SharedCorpus(t testing.TB) string {
	t.Helper()
	p := os.Getenv("EMPTIES_CORPUS")
	if p == "" {
		p = filepath.Join(RepoRoot(t), "..", "shared", "corpus", "inspect-ai-tests")
	}
	if _, err := os.Stat(filepath.Join(p, "SAMPLES.tsv")); err != nil {
		t.Fatalf("shared corpus not found at %s (set EMPTIES_CORPUS to its folder): %v", p, err)
	}
	return p
}

// WildCorpus returns the shared corpus of logs written by other people with
// real providers (../shared/corpus/wild, with its SAMPLES.tsv). A missing
// corpus fails the test.
func WildCorpus(t testing.TB) string {
	t.Helper()
	p := os.Getenv("EMPTIES_WILD_CORPUS")
	if p == "" {
		p = filepath.Join(RepoRoot(t), "..", "shared", "corpus", "wild")
	}
	if _, err := os.Stat(filepath.Join(p, "SAMPLES.tsv")); err != nil {
		t.Fatalf("wild corpus not found at %s (set EMPTIES_WILD_CORPUS to its folder): %v", p, err)
	}
	return p
}

// Query runs a query over the dataset's tables and returns the rows as text
// (NULL for nulls).
func Query(t testing.TB, dataDir, q string, args ...any) [][]string {
	t.Helper()
	ctx := context.Background()
	db, _, err := duck.OpenDataset(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, rows, err := duck.Rows(ctx, db, q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out [][]string // nil for no rows
	for range rows {
		out = append(out, nil)
	}
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			out[i][j] = sqlfmt.Format(v)
		}
	}
	return out
}

// CPUSeconds is the CPU time (user+sys) of the process so far: a
// benchmark reports it beside its wall time, which other load on the
// machine inflates (ReportCPU).
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// ReportCPU reports the process's CPU seconds since start (CPUSeconds) per
// op, and the MB/s of bytes per op at that CPU time, as cpu-s/op and
// cpu-MB/s.
func ReportCPU(b *testing.B, start float64, bytes int64) {
	b.StopTimer()
	s := (CPUSeconds() - start) / float64(b.N)
	b.ReportMetric(s, "cpu-s/op")
	if bytes > 0 && s > 0 {
		b.ReportMetric(float64(bytes)/1e6/s, "cpu-MB/s")
	}
}

// Fixture is the dataset writer of a test that builds a fixture dataset
// from tables of several stages (store.FixtureWriter may write every
// table), with the view file of every generation, as a stage's.
var Fixture = store.Stage{Name: store.FixtureWriter, Views: duck.ViewFile}
