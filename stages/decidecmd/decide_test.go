package decidecmd_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/decide"
	"empties/internal/duck"
	"empties/internal/ingest/ingesttest"
	"empties/internal/store"
	"empties/internal/testutil"
	"empties/stages/decidecmd"
)

// writeTable stores rows given as SQL as table name of the dataset at dir.
func writeTable(t *testing.T, dir, name, selectSQL string) {
	t.Helper()
	db, err := duck.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds, err := store.Create(testutil.Fixture, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	td, err := ds.TableDir(name)
	if err != nil {
		t.Fatal(err)
	}
	q := "COPY (" + selectSQL + ") TO " + duck.Quote(filepath.Join(td, "part-00000.parquet")) + " (FORMAT parquet)"
	if _, err := db.ExecContext(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := ds.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestDecisionRulesUseManifestThresholds(t *testing.T) {
	dir := ingesttest.Dataset(t, testutil.Path(t, "testdata", "logs", "zstd-basic.eval"))
	// D1(a): one cell at exactly 5% ("5% or more" → met), one at 0.5%.
	writeTable(t, dir, "d1a_truncation", `SELECT * FROM (VALUES
	  ('xstest_safe', 'r1', 0.05::DOUBLE, 0.02::DOUBLE, 0.1::DOUBLE, 100),
	  ('hle_text', 'r1', 0.005, 0.001, 0.02, 200)) t(eval, route, share, ci_low, ci_high, n_samples)`)
	// D1(b): pooled share 0.2 < 25% → not met.
	writeTable(t, dir, "d1b_non_refusal", `SELECT * FROM (VALUES
	  ('xstest_safe', NULL, true, 10, 0.2::DOUBLE, 0.05::DOUBLE, 0.5::DOUBLE),
	  ('xstest_safe', 'r1', false, 10, 0.9, 0.5, 1.0)) t(eval, route, pooled, n_samples, share_non_refusal, ci_low, ci_high)`)
	// D4: a pass rate of exactly 5% is not "more than 5%"; repeats disagree on 20%.
	writeTable(t, dir, "d4_judge_behaviour", `SELECT * FROM (VALUES
	  ('strong_reject', 'judge', 'empty', false, 20, 0.05::DOUBLE, 0.01::DOUBLE, 0.24::DOUBLE, 10, 0.0::DOUBLE, 0.0::DOUBLE, 0.28::DOUBLE),
	  ('coconot_original', 'judge', 'empty', false, 20, 0.0, 0.0, 0.16, 10, 0.2, 0.06, 0.51)) t(eval, judge_model, form, pooled, n_scored_cases, pass_rate, pass_ci_low, pass_ci_high, n_repeated_cases, repeat_disagreement, disagree_ci_low, disagree_ci_high)`)
	// D3: a primary refusal-eval cell moving 3 pp on a 0-100 metric with half-width 2 → met.
	writeTable(t, dir, "d3_headline_deltas", `SELECT *, delta / pp_unit AS delta_pp, p0_half_width / pp_unit AS p0_half_width_pp FROM (VALUES
	  ('xstest_safe', 'r1', 'default', 'refusal', true, 3.0::DOUBLE, 1.0::DOUBLE, 2.0::DOUBLE),
	  ('gpqa_diamond', 'r1', 'default', 'capability', false, 0.5, 0.01, 0.02)) t(eval, route, arm, kind, is_primary, delta, pp_unit, p0_half_width)`)

	var out bytes.Buffer
	if err := decidecmd.Run(context.Background(), decidecmd.Options{Config: decide.Config{Data: dir, Manifest: testutil.Path(t, "data", "study.yaml")}}, &out); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"D1a.raise": "met", "D1a.helper": "met", "D1b": "not met", "D2": "not enough data",
		"D3": "met", "D4": "met", "H1": "inconclusive", "H2": "not enough data", "H3": "supported", "H4": "supported",
	}
	rows := testutil.Query(t, dir, "SELECT rule, verdict, recommendation, cells FROM decisions")
	if len(rows) != len(want) {
		t.Fatalf("decisions: %v", rows)
	}
	for _, r := range rows {
		if want[r[0]] != r[1] {
			t.Errorf("%s: %s, want %s (%s)", r[0], r[1], want[r[0]], r[3])
		}
		if r[0] == "D1a.raise" && (!strings.Contains(r[2], "xstest_safe") || strings.Contains(r[2], "hle_text")) {
			t.Errorf("D1a.raise names the wrong evals: %s", r[2])
		}
		if r[0] == "D4" && (strings.Contains(r[3], "strong_reject") || !strings.Contains(r[3], "coconot_original")) {
			t.Errorf("D4 cells: %s", r[3])
		}
	}
}
