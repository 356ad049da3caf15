package sqlcmd_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/duck"
	"empties/internal/ingest"
	"empties/internal/ingest/ingesttest"
	"empties/internal/measures"
	"empties/internal/store"
	"empties/internal/testutil"
	"empties/stages/sqlcmd"
)

// A dataset whose path holds a quote, a glob or a DSN character is read
// only from its own files, by every reader that names a path in DuckDB:
// `empties sql`, the view file, analyze's source views (through analyze
// and its checks). Each dataset sits beside runs/run1, which holds two logs
// where each of the others holds one, so reading a sibling shows.
func TestDatasetPathCharacters(t *testing.T) {
	ctx := context.Background()
	logs := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, testutil.Path(t, "testdata", "logs", n))
		}
		return out
	}
	runs := filepath.Join(t.TempDir(), "runs")
	ingestInto := func(dir string, paths []string) { ingesttest.Build(t, ingest.Config{Paths: paths, Out: dir}) }
	ingestInto(filepath.Join(runs, "run1"), logs("zstd-basic.eval", "deflate.eval"))
	for _, name := range []string{"run*", "run?", "ru[n]1", "run{1,2}", "it's", "50%20", "a#b", "q?x=1&y=%zz"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(runs, name)
			ingestInto(dir, logs("zstd-basic.eval"))
			ingestInto(dir, logs("zstd-basic.eval")) // a second generation
			var out bytes.Buffer
			if err := sqlcmd.Run(ctx, sqlcmd.Options{Query: "SELECT count(*) AS n FROM logs", Data: dir, Format: "csv"}, &out); err != nil {
				t.Fatalf("sql: %v", err)
			}
			if out.String() != "n\n1\n" {
				t.Errorf("sql counts %q, want one log", out.String())
			}
			db, err := duck.Open(filepath.Join(dir, store.ViewsFile))
			if err != nil {
				t.Fatal(err)
			}
			_, rows, err := duck.Rows(ctx, db, "SELECT count(*) FROM logs")
			db.Close()
			if err != nil || len(rows) != 1 || rows[0][0] != int64(1) {
				t.Errorf("view file counts %v, %v", rows, err)
			}
			if err := measures.Run(ctx, measures.Config{Data: dir, Manifest: testutil.Path(t, "data", "study.yaml")}, io.Discard); err != nil {
				t.Fatalf("analyze: %v", err)
			}
			broken, absent, err := measures.CheckOutputs(ctx, dir)
			if err != nil || len(broken) > 0 || len(absent) > 0 {
				t.Errorf("checks: broken %v, absent %v, %v", broken, absent, err)
			}
			out.Reset()
			if err := sqlcmd.Run(ctx, sqlcmd.Options{Query: "SELECT count(*) AS n FROM replies", Data: dir, Format: "csv"}, &out); err != nil || out.String() != "n\n3\n" {
				t.Errorf("replies after analyze: %q, %v", out.String(), err)
			}
			if _, err := os.Stat(filepath.Join(runs, "run1", "gen")); err != nil {
				t.Error(err)
			}
			if strings.Contains(name, "*") && !store.HasTable(dir, "class_rates") {
				t.Error("analyze wrote no class_rates")
			}
		})
	}
}
