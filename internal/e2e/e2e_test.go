// Package e2e runs the whole pipeline on each case under testdata/e2e and
// compares the tables it writes with the case's expected CSV files, beside
// the per-measure tests of internal/measures.
//
// A case is a folder testdata/e2e/<case>/ holding inputs.txt and
// expected/<table>.csv. inputs.txt has one "key: value" per line:
//
//	logs: data/demo/logs          log files or folders, relative to the repo root (repeatable)
//	manifest: data/study.yaml     the experiment manifest
//	tables: decisions, headlines  the tables compared, one CSV each
//	all_attempts: true            ingest --all-attempts (a folder of variants, not a log set)
//
// The pipeline is ingest, rescore, analyze and decide, as `make demo` runs
// it. Doubles are written with 10 significant digits, so float noise in the
// last digits (DuckDB's parallel sums) does not count; rows are sorted.
// After a deliberate change, rewrite the expected files and review the diff:
//
//	go test ./internal/e2e/ -update
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"empties/internal/decide"
	"empties/internal/duck"
	"empties/internal/ingest"
	"empties/internal/sqlfmt"
	"empties/internal/study"
	"empties/internal/testutil"
	"empties/stages/analyze"
)

var update = flag.Bool("update", false, "rewrite testdata/e2e/*/expected/*.csv from this run")

type inputs struct {
	logs     []string
	manifest string
	tables   []string
	all      bool
}

func readInputs(t *testing.T, path string) inputs {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var in inputs
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		val = strings.TrimSpace(val)
		switch key = strings.TrimSpace(key); {
		case !ok:
			t.Fatalf("%s:%d: want key: value, got %q", path, n, line)
		case key == "logs":
			in.logs = append(in.logs, testutil.Path(t, strings.Split(val, "/")...))
		case key == "manifest":
			in.manifest = testutil.Path(t, strings.Split(val, "/")...)
		case key == "tables":
			for _, tb := range strings.Split(val, ",") {
				in.tables = append(in.tables, strings.TrimSpace(tb))
			}
		case key == "all_attempts":
			in.all = val == "true"
		default:
			t.Fatalf("%s:%d: unknown key %q (keys: logs, manifest, tables, all_attempts)", path, n, key)
		}
	}
	if len(in.logs) == 0 || in.manifest == "" || len(in.tables) == 0 {
		t.Fatalf("%s: needs logs, manifest and tables", path)
	}
	return in
}

func TestPipelineGoldens(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join(testutil.Path(t, "testdata", "e2e"), "*", "inputs.txt"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases under testdata/e2e (%v)", err)
	}
	for _, c := range cases {
		dir := filepath.Dir(c)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in := readInputs(t, c)
			data := t.TempDir()
			ctx := context.Background()
			if err := ingest.Build(ctx, ingest.Config{Paths: in.logs, Out: data, AllAttempts: in.all}); err != nil {
				t.Fatal(err)
			}
			if _, err := study.Rescore(ctx, study.Config{Data: data, Manifest: in.manifest}); err != nil {
				t.Fatal(err)
			}
			if err := analyze.Run(ctx, analyze.Options{Data: data, Manifest: in.manifest}, io.Discard); err != nil {
				t.Fatal(err)
			}
			if _, err := decide.Decide(ctx, decide.Config{Data: data, Manifest: in.manifest}); err != nil {
				t.Fatal(err)
			}
			for _, table := range in.tables {
				got := tableCSV(t, data, table)
				path := filepath.Join(dir, "expected", table+".csv")
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run `go test ./internal/e2e/ -update` to write it)", err)
				}
				if d := diff(string(want), string(got)); d != "" {
					t.Errorf("%s differs from %s (- expected, + got; `go test ./internal/e2e/ -update` after a deliberate change):\n%s", table, path, d)
				}
			}
		})
	}
}

// tableCSV is a table as CSV: a header, then every row sorted, doubles with
// 10 significant digits.
func tableCSV(t *testing.T, data, table string) []byte {
	t.Helper()
	ctx := context.Background()
	db, _, err := duck.OpenDataset(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cols, rows, err := duck.Rows(ctx, db, "SELECT * FROM "+duck.Ident(table)+" ORDER BY ALL")
	if err != nil {
		t.Fatalf("%s: %v", table, err)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(cols)
	for _, r := range rows {
		rec := make([]string, len(r))
		for i, v := range r {
			if f, ok := v.(float64); ok {
				// Ten significant digits, and anything within 1e-9 of zero is
				// zero: DuckDB's parallel float sums differ run to run in the
				// last bits, which leaves a delta that is exactly zero as
				// ±3.6e-15 on one run and 0 on the next.
				if math.Abs(f) < 1e-9 {
					f = 0
				}
				rec[i] = strconv.FormatFloat(f, 'g', 10, 64)
			} else {
				rec[i] = sqlfmt.Format(v)
			}
		}
		w.Write(rec)
	}
	w.Flush()
	return b.Bytes()
}

// diff lists the lines only in want (-) and only in got (+), at most 40.
func diff(want, got string) string {
	if want == got {
		return ""
	}
	count := map[string]int{}
	for _, l := range strings.Split(got, "\n") {
		count[l]++
	}
	var out []string
	for _, l := range strings.Split(want, "\n") {
		if count[l] > 0 {
			count[l]--
			continue
		}
		out = append(out, "- "+l)
	}
	for _, l := range strings.Split(got, "\n") {
		if count[l] > 0 {
			count[l]--
			out = append(out, "+ "+l)
		}
	}
	if len(out) > 40 {
		out = append(out[:40], fmt.Sprintf("… and %d more lines", len(out)-40))
	}
	return strings.Join(out, "\n")
}
