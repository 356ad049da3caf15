// Package e2e runs the whole pipeline on each case under testdata/e2e and
// compares the tables it writes, and the tables of its report as a reader
// sees them, with the case's expected files, beside the per-measure tests of
// internal/measures.
//
// A case is a folder testdata/e2e/<case>/ holding inputs.txt,
// expected/<table>.csv and expected/report_tables.md. inputs.txt has one
// "key: value" per line:
//
//	logs: data/demo/logs          log files or folders, relative to the repo root (repeatable)
//	manifest: data/study.yaml     the experiment manifest
//	tables: decisions, headlines  the tables compared, one CSV each
//	all_attempts: true            ingest --all-attempts (a folder of variants, not a log set)
//
// The pipeline is `empties run` (stages/runcmd: ingest, rescore, check,
// analyze, decide, report), run from the repository's root with the paths of
// inputs.txt as given, as `make demo` runs it. In the CSV files doubles are
// written with 10 significant digits, so float noise in the last digits
// (DuckDB's parallel sums) does not count; rows are sorted.
// report_tables.md is every table of the report's index.md, cells formatted
// as the page shows them (see reportTables). After a deliberate change,
// rewrite the expected files and review the diff:
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
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"empties/internal/duck"
	"empties/internal/measures"
	"empties/internal/sqlfmt"
	"empties/internal/testutil"
	"empties/stages/runcmd"
)

var update = flag.Bool("update", false, "rewrite testdata/e2e/*/expected/* from this run")

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
			in.logs = append(in.logs, repoPath(t, path, n, val))
		case key == "manifest":
			in.manifest = repoPath(t, path, n, val)
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

// repoPath is a path of inputs.txt, relative to the repository's root as
// the user types it (the tables then hold the same paths in any checkout).
func repoPath(t *testing.T, file string, line int, val string) string {
	t.Helper()
	p := filepath.FromSlash(val)
	if _, err := os.Stat(filepath.Join(testutil.RepoRoot(t), p)); err != nil {
		t.Fatalf("%s:%d: %v", file, line, err)
	}
	return p
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
			t.Chdir(testutil.RepoRoot(t))
			opts := runcmd.Options{Logs: in.logs, Out: data, Manifest: in.manifest, Progress: "never", AllAttempts: in.all,
				ExamplesSeed: 1, ExamplesPerClass: measures.DefaultExamplesPerClass}
			if err := runcmd.Run(ctx, opts, io.Discard, io.Discard); err != nil {
				t.Fatal(err)
			}
			for _, table := range in.tables {
				golden(t, filepath.Join(dir, "expected", table+".csv"), table, tableCSV(t, data, table))
			}
			golden(t, filepath.Join(dir, "expected", "report_tables.md"), "the report's tables", reportTables(t, data, runcmd.ReportDir(opts)))
		})
	}
}

// golden compares got with the file at path, or rewrites it with -update.
func golden(t *testing.T, path, what string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test ./internal/e2e/ -update` to write it)", err)
	}
	if d := diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs from %s (- expected, + got; `go test ./internal/e2e/ -update` after a deliberate change):\n%s", what, path, d)
	}
}

// reportTables is every table of the report as the reader sees it: from
// index.md, the headings and bold titles that name the tables, the notes of
// what every row shares ("Every row has ..."), the lines that list the
// tables with no rows, and each table's rows with its cells formatted as the
// page formats them (index.html renders the same cells); each table of "All
// tables" from its tables/<name>.md, whose cells are not cut for the index
// page. What differs from run to run or checkout to checkout is written as
// such: the repository's root as REPO; analyze_runs' seconds and run_at (labels seconds, run at) as
// "…"; a log's id (a hash of its absolute path) as log#N, N its path's rank,
// and the rows of a table that shows one sorted (their order was the hash's).
func reportTables(t *testing.T, data, report string) []byte {
	t.Helper()
	ctx := context.Background()
	db, _, err := duck.OpenDataset(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	_, ids, err := duck.Rows(ctx, db, "SELECT log_id FROM logs ORDER BY path, log_id")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	pairs := []string{testutil.RepoRoot(t), "REPO"}
	for i, r := range ids {
		pairs = append(pairs, sqlfmt.Format(r[0]), fmt.Sprintf("log#%d", i+1))
	}
	stable := strings.NewReplacer(pairs...)
	read := func(name string) []string {
		b, err := os.ReadFile(filepath.Join(report, name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(string(b), "\n")
	}
	var out []string
	all := false
	for _, l := range tableLines(read("index.md"), stable) {
		if l == "## All tables" {
			all = true
		}
		m := foldedTable.FindStringSubmatch(l)
		switch {
		case !all:
			out = append(out, l)
		case m != nil:
			out = append(out, l)
			out = append(out, tableLines(read(filepath.Join("tables", m[1]+".md"))[1:], stable)...)
		case !strings.HasPrefix(l, "|"):
			out = append(out, l)
		}
	}
	if !all || !slices.ContainsFunc(out, func(l string) bool { return strings.HasPrefix(l, "| ") }) {
		t.Fatalf("%s: no tables, or no \"All tables\", in index.md", report)
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

// foldedTable is the bold title of a table of "All tables": **title: `name`, N rows** (1 row).
var foldedTable = regexp.MustCompile("^\\*\\*.*: `([a-z0-9_]+)`, [0-9,]+ rows?\\*\\*$")

// volatileNote is a column of analyze_runs that differs on every run, as a
// note of what every row shares names it.
var volatileNote = regexp.MustCompile(`\b(seconds|run at) [^,]+?(, |\.$)`)

// tableLines keeps the lines of a Markdown page that show tables (see
// reportTables), made stable.
func tableLines(lines []string, stable *strings.Replacer) []string {
	var out, rows []string
	volatile := map[int]bool{}
	hasID := false
	flush := func() {
		if hasID {
			sort.Strings(rows)
		}
		out = append(out, rows...)
		rows, hasID = nil, false
	}
	for i, l := range lines {
		isRow := strings.HasPrefix(l, "|") && i > 1 && strings.HasPrefix(lines[i-1], "|") && strings.HasPrefix(lines[i-2], "|")
		if !isRow {
			flush()
		}
		r := stable.Replace(l)
		switch {
		case isRow:
			cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(r, "| "), " |"), " | ")
			for k := range cells {
				if volatile[k] {
					cells[k] = "…"
				}
			}
			hasID = hasID || strings.Contains(r, "log#")
			rows = append(rows, "| "+strings.Join(cells, " | ")+" |")
		case strings.HasPrefix(l, "|") && !strings.HasPrefix(l, "|-"): // a header
			volatile = map[int]bool{}
			for k, c := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(l, "| "), " |"), " | ") {
				volatile[k] = c == "seconds" || c == "run at" // analyze_runs' labels
			}
			out = append(out, r)
		case strings.HasPrefix(l, "|"), strings.HasPrefix(l, "#"), strings.HasPrefix(l, "**") && strings.HasSuffix(l, "**"), strings.HasPrefix(l, "- No rows: "):
			out = append(out, r)
		case strings.HasPrefix(l, "Every row has "):
			out = append(out, volatileNote.ReplaceAllString(r, "$1 …$2"))
		}
	}
	flush()
	return out
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
