// Package testutil holds helpers shared by tests: locating the repository and
// its fixtures, and querying a dataset with the real embedded DuckDB.
package testutil

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"empties/internal/duck"
	"empties/internal/sqlfmt"
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
