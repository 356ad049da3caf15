package measures

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/cliutil"
	"empties/internal/duck"
	"empties/internal/store"
	"empties/internal/testutil"
	"empties/schema"
)

// writeDataset writes a dataset directory from given rows: every schema table
// is created with its declared columns, given fills some, and each table
// holding rows is written as its part-00000.parquet in one generation of
// the dataset at dir. Tables without rows are absent from the dataset.
func writeDataset(t testing.TB, given string) string {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	conn := testDB(t)
	var names []string
	for _, tb := range schema.Tables() {
		names = append(names, tb.Name)
	}
	if err := createSourceTables(ctx, conn, names); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range statements(stripComments(given)) {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("given: %s: %v", stmt, err)
		}
	}
	ds, err := store.Create(testutil.Fixture, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	for _, n := range names {
		var rows int64
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM "+duck.Ident(n)).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if rows == 0 {
			continue
		}
		td, err := ds.TableDir(n)
		if err != nil {
			t.Fatal(err)
		}
		q := fmt.Sprintf("COPY %s TO %s (FORMAT parquet)", duck.Ident(n), duck.Quote(filepath.Join(td, "part-00000.parquet")))
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := ds.Commit(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// studyGiven is a small study without model calls, policy scores or judge
// verdicts, so cost and judge_calls_saved have a missing input.
const studyGiven = xstestReplies + hleTight + studyRoutes + studyEvals + wideReruns + judgeTests + sonnetForms + headlineCells

// manifestPath is the study manifest: analyze reads its interval level,
// bootstrap seed and resamples, and its routes' model strings.
func manifestPath(t testing.TB) string { return testutil.Path(t, "data", "study.yaml") }

func runAnalyze(t *testing.T, dir string) string {
	t.Helper()
	var out bytes.Buffer
	if err := Run(context.Background(), Config{Data: dir, Manifest: manifestPath(t)}, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// readOutput reads an output back from its Parquet files with DuckDB itself.
func readOutput(t *testing.T, dir, table, columns, order string) []string {
	t.Helper()
	conn := testDB(t)
	root, err := store.Current(dir)
	if err != nil {
		t.Fatal(err)
	}
	return queryRows(t, conn, fmt.Sprintf("SELECT %s FROM %s ORDER BY %s", columns, duck.ReadParquet(root, table), order))
}

func TestRunWritesEveryOutput(t *testing.T) {
	dir := writeDataset(t, studyGiven)
	out := runAnalyze(t, dir)
	if !strings.Contains(out, fmt.Sprintf("analyze: %d tables written to", len(wantOutputs)+1)) || !strings.Contains(out, "skipped: no model_calls table in the dataset") {
		t.Errorf("summary:\n%s", out)
	}
	s := loadSuite(t)
	for _, st := range s.Outputs() {
		if !store.HasTable(dir, st.Output) {
			t.Errorf("no %s table", st.Output)
		}
	}
	got := readOutput(t, dir, RunsTable, "output, status, missing_inputs, n_rows, file", "output")
	want := []string{
		"class_examples | skipped | [logs] | 0 | sql/marts/class_examples.sql",
		"class_rates | ok | [] | 44 | sql/marts/class_rates.sql",
		"cost | skipped | [model_calls] | 0 | sql/marts/cost.sql",
		"d1a_truncation | ok | [] | 2 | sql/marts/d1a_truncation.sql",
		"d1b_non_refusal | ok | [] | 3 | sql/marts/d1b_non_refusal.sql",
		"d1b_wide_outcomes | ok | [] | 8 | sql/marts/d1b_wide_outcomes.sql",
		"d2_form_disagreement | ok | [] | 3 | sql/marts/d2_form_disagreement.sql",
		"d3_headline_deltas | ok | [] | 4 | sql/marts/d3_headline_deltas.sql",
		"d4_judge_behaviour | ok | [] | 3 | sql/marts/d4_judge_behaviour.sql",
		"d4_judge_verdicts | ok | [] | 4 | sql/marts/d4_judge_verdicts.sql",
		"judge_calls_on_non_answers | skipped | [model_calls] | 0 | sql/marts/judge_calls_on_non_answers.sql",
		"judge_calls_saved | skipped | [judge_verdicts, policy_scores] | 0 | sql/marts/judge_calls_saved.sql",
		"log_accounting | skipped | [logs] | 0 | sql/marts/log_accounting.sql",
		"non_answer_rates | ok | [] | 4 | sql/marts/non_answer_rates.sql",
		"overview | ok | [] | 5 | sql/marts/overview.sql",
		"overview_classes | ok | [] | 13 | sql/marts/overview_classes.sql",
		"rates_by_stop_category | ok | [] | 4 | sql/marts/rates_by_stop_category.sql",
		"rates_by_stop_reason | ok | [] | 4 | sql/marts/rates_by_stop_reason.sql",
		"reply_sources | ok | [] | 4 | sql/marts/reply_sources.sql",
		"tight_vs_default | ok | [] | 2 | sql/marts/tight_vs_default.sql",
		"transient_share | ok | [] | 2 | sql/marts/transient_share.sql",
		"truncation_by_max_tokens | ok | [] | 4 | sql/marts/truncation_by_max_tokens.sql",
		"turn_examples | skipped | [logs, model_calls] | 0 | sql/marts/turn_examples.sql",
		"turn_rates | skipped | [model_calls] | 0 | sql/marts/turn_rates.sql",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("analyze_runs:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	// What was computed in memory is what a reader of the Parquet finds.
	got = readOutput(t, dir, "d1a_truncation", "*", "eval, route")
	want = []string{
		"hle | r1 | m1 | 5 | 5 | 2 | 2 | 0.4 | 0.117621 | 0.769276 | 0.95", // statsmodels: Wilson(2, 5)
		"xs | r1 | m1 | 3 | 4 | 2 | 1.5 | 0.5 | 0.125334 | 0.874666 | 0.95",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("d1a_truncation:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// Every output read back from its Parquet has the columns and types of its
// contract: what DuckDB wrote is what pandas, polars and DuckDB will read.
func TestOutputsRoundTrip(t *testing.T) {
	dir := writeDataset(t, studyGiven)
	runAnalyze(t, dir)
	s := loadSuite(t)
	conn := testDB(t)
	for name, c := range s.Contracts {
		got := queryRows(t, conn, fmt.Sprintf("SELECT column_name || ' ' || column_type FROM (DESCRIBE SELECT * FROM read_parquet(%s))", duck.Quote(store.TableGlob(dir, name))))
		var want []string
		for _, col := range c.Columns {
			want = append(want, col.Name+" "+col.Type)
		}
		if strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("%s read back as\n  %s\ncontract\n  %s", name, strings.Join(got, ", "), strings.Join(want, ", "))
		}
	}
}

// The same data and manifest give the same numbers, bootstrap intervals
// included; a second run replaces the first run's tables.
func TestRunIsReproducible(t *testing.T) {
	dir := writeDataset(t, studyGiven)
	s := loadSuite(t)
	snapshot := func() map[string][]string {
		runAnalyze(t, dir)
		out := map[string][]string{}
		for _, st := range s.Outputs() {
			out[st.Output] = readOutput(t, dir, st.Output, "*", st.Contract.KeyOrder())
		}
		return out
	}
	first, second := snapshot(), snapshot()
	for name, rows := range first {
		if strings.Join(rows, "\n") != strings.Join(second[name], "\n") {
			t.Errorf("%s differs between runs:\n  %s\nthen\n  %s", name, strings.Join(rows, "\n  "), strings.Join(second[name], "\n  "))
		}
	}
	if got := readOutput(t, dir, "tight_vs_default", "count(*), count(ci_low)", "1"); got[0] != "2 | 2" {
		t.Errorf("tight_vs_default rows with an interval: %v", got)
	}
	files := store.TableFiles(dir, "class_rates")
	if len(files) != 1 {
		t.Errorf("class_rates files after two runs: %v", files)
	}
}

func TestRunNeedsReplies(t *testing.T) {
	err := Run(context.Background(), Config{Data: t.TempDir(), Manifest: manifestPath(t)}, &bytes.Buffer{})
	var usage *cliutil.UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "empties ingest LOGS --out") {
		t.Errorf("got %v, want a usage error naming ingest", err)
	}
}

// The contracts hold on a written dataset, and a tampered table breaks them.
func TestCheckOutputs(t *testing.T) {
	dir := writeDataset(t, studyGiven)
	broken, absent, err := CheckOutputs(context.Background(), dir)
	if err != nil || len(broken) != 0 || len(absent) != len(wantOutputs)+1 {
		t.Fatalf("before analyze: broken %v, %d absent, %v", broken, len(absent), err)
	}
	runAnalyze(t, dir)
	broken, absent, err = CheckOutputs(context.Background(), dir)
	if err != nil || len(broken) != 0 || len(absent) != 0 {
		t.Fatalf("after analyze: broken %v, absent %v, %v", broken, absent, err)
	}
	conn := testDB(t)
	root, err := store.Current(dir)
	if err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(t.TempDir(), "x.parquet")
	if _, err := conn.ExecContext(context.Background(), fmt.Sprintf(
		"COPY (SELECT * REPLACE (rate * 2 AS rate) FROM %s) TO %s (FORMAT parquet)", duck.ReadParquet(root, "class_rates"), duck.Quote(tampered))); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tampered, filepath.Join(root, "class_rates", "part-00000.parquet")); err != nil {
		t.Fatal(err)
	}
	broken, _, err = CheckOutputs(context.Background(), dir)
	if err != nil || len(broken) == 0 || !strings.Contains(strings.Join(broken, "\n"), `class_rates: invariant "the shares of a cell sum to 1" broken`) {
		t.Errorf("after doubling the rates: %v, %v", broken, err)
	}
}
