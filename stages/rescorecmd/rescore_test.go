package rescorecmd_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/ingest"
	"empties/internal/ingest/ingesttest"
	"empties/internal/manifest"
	"empties/internal/store"
	"empties/internal/study"
	"empties/internal/testutil"
	"empties/stages/checkcmd"
	"empties/stages/rescorecmd"
)

// ingested ingests testdata/logs with every attempt counted: the fixtures are
// variants of a few logs (deflate.eval is zstd-basic.eval re-packed,
// recovered.eval the recovery of journal-only.eval), not one study's log set.
func ingested(t *testing.T) string {
	t.Helper()
	return ingesttest.Build(t, ingest.Config{Paths: []string{testutil.Path(t, "testdata", "logs")}, AllAttempts: true})
}

func rescored(t *testing.T, dir string) string {
	t.Helper()
	var out bytes.Buffer
	if err := rescorecmd.Run(context.Background(), rescorecmd.Options{Config: study.Config{Data: dir, Manifest: testutil.Path(t, "stages", "rescorecmd", "testdata", "manifest.yaml")}}, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// P0, recomputed from the rows with each profile's formula, reproduces the
// metric inspect_ai's own metric code stored in every finished log; a log
// still running has none to compare.
func TestP0ReproducesStoredMetrics(t *testing.T) {
	dir := ingested(t)
	rescored(t, dir)
	rows := testutil.Query(t, dir, `SELECT regexp_extract(path, '[^/]+$'), eval, status, stored, recomputed FROM p0_check ORDER BY 1`)
	want := map[string]string{
		"zstd-basic.eval": "ok", "deflate.eval": "ok", "stored.eval": "ok", "zip64.eval": "ok", "multiframe-zstd.eval": "ok",
		"duplicate-members.eval": "ok", "epochs.eval": "ok", "sample-error.eval": "ok", "int-ids.json": "ok", "string-ids.json": "ok",
		"cancelled.eval": "ok", "recovered.eval": "ok", "journal-only.eval": "unchecked",
		"grader-role.eval": "ok", "grader-no-role.eval": "ok", "attachments.eval": "ok",
	}
	got := map[string]string{}
	for _, r := range rows {
		got[r[0]] = r[2]
		if r[2] != want[r[0]] {
			t.Errorf("%s (%s): %s, want %s; stored %s recomputed %s", r[0], r[1], r[2], want[r[0]], r[3], r[4])
		}
	}
	for f := range want {
		if _, ok := got[f]; !ok {
			t.Errorf("%s: no P0 check row", f)
		}
	}
	var out bytes.Buffer
	if err := checkcmd.Run(context.Background(), checkcmd.Options{Data: dir}, &out); err != nil {
		t.Fatalf("check: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "15 of 16 logs reproduce the stored metric, 0 mismatch, 1 have none stored") {
		t.Errorf("check output:\n%s", out.String())
	}
}

// The same data and seed give the same headlines and intervals, and each
// interval holds its point value.
func TestHeadlinesAreReproducible(t *testing.T) {
	dir := ingested(t)
	rescored(t, dir)
	q := `SELECT eval, route, arm, policy, value, ci_low, ci_high, n_samples, n_scored, n_unscored FROM headlines ORDER BY ALL`
	first := testutil.Query(t, dir, q)
	rescored(t, dir)
	second := testutil.Query(t, dir, q)
	if len(first) == 0 || len(first) != len(second) {
		t.Fatalf("headline rows %d then %d", len(first), len(second))
	}
	for i := range first {
		if strings.Join(first[i], "|") != strings.Join(second[i], "|") {
			t.Errorf("run 1 %v, run 2 %v", first[i], second[i])
		}
	}
	bad := testutil.Query(t, dir, `SELECT eval, arm, policy, value, ci_low, ci_high FROM headlines WHERE value < ci_low - 1e-12 OR value > ci_high + 1e-12`)
	if len(bad) > 0 {
		t.Errorf("intervals that miss their point value: %v", bad)
	}
	// P0 against itself is exactly 0 on every resample.
	p0 := testutil.Query(t, dir, `SELECT count(*) FROM headlines WHERE policy = 'P0' AND value IS NOT NULL AND NOT (delta_p0 = 0 AND delta_low = 0 AND delta_high = 0)`)
	if p0[0][0] != "0" {
		t.Errorf("%s P0 rows with a non-zero paired delta", p0[0][0])
	}
}

// Judge calls that produced a score become judge_verdicts, with the class of
// the reply they graded; the grader without a role is found by its span.
func TestJudgeVerdicts(t *testing.T) {
	dir := ingested(t)
	rescored(t, dir)
	rows := testutil.Query(t, dir, `SELECT regexp_extract(a.path, '[^/]+$'), count(*), count(DISTINCT v.sample_id), min(v.judge_class), bool_and(v.judge_text <> '')
	  FROM judge_verdicts v JOIN log_assignments a USING (log_id) GROUP BY 1 ORDER BY 1`)
	want := map[string]string{"attachments.eval": "1 1", "grader-no-role.eval": "2 2", "grader-role.eval": "3 3"}
	if len(rows) != len(want) {
		t.Fatalf("verdict rows by log: %v", rows)
	}
	for _, r := range rows {
		if r[1]+" "+r[2] != want[r[0]] || r[3] != "usable" || r[4] != "true" {
			t.Errorf("%v, want %s verdicts/samples, usable, with text", r, want[r[0]])
		}
	}
}

func TestManifestErrorsNameFileAndLine(t *testing.T) {
	base, err := os.ReadFile(testutil.Path(t, "stages", "rescorecmd", "testdata", "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := testutil.Path(t, "stages", "rescorecmd", "testdata")
	cases := []struct {
		name, from, to, want string
	}{
		{"unknown field", "study: rescore tests", "study: rescore tests\nstudyy: typo", "manifest-bad.yaml:4: unknown key studyy"},
		{"bad arm", "      arm: tight", "      arm: narrow", `manifest-bad.yaml:20: arm "narrow"`},
		{"hash mismatch", "sha256: 1aac", "sha256: 0aac", "preregistration: "},
		{"unknown eval", "evals: [basic_match, basic_includes, graded_qa]", "evals: [basic_match, xstest]", `eval "xstest" has no profile`},
		{"missing threshold", "  d4_pass_rate: 0.05\n", "", "d4_pass_rate is missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(string(base), c.from, c.to, 1)
			p := filepath.Join(dir, "manifest-bad.yaml")
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(p)
			_, err := manifest.Load(p, manifest.Options{})
			var me *manifest.Error
			if !errors.As(err, &me) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// The study manifest and its eval profiles, on logs written by the real
// inspect_ai with each eval's own scorer and metric code (inspect-evals
// pinned in requirements.txt): P0 reproduces every stored headline.
func TestStudyProfilesReproduceRealMetrics(t *testing.T) {
	dir := ingesttest.Dataset(t, testutil.Path(t, "testdata", "profiles"))
	var out bytes.Buffer
	if err := rescorecmd.Run(context.Background(), rescorecmd.Options{Config: study.Config{Data: dir, Manifest: testutil.Path(t, "data", "study.yaml")}}, &out); err != nil {
		t.Fatal(err)
	}
	rows := testutil.Query(t, dir, `SELECT eval, status, stored, recomputed, detail FROM p0_check ORDER BY eval`)
	evals := map[string]bool{}
	for _, r := range rows {
		evals[r[0]] = true
		if r[1] != "ok" {
			t.Errorf("%s: %s (stored %s, recomputed %s): %s", r[0], r[1], r[2], r[3], r[4])
		}
	}
	for _, e := range []string{"xstest_safe", "xstest_unsafe", "coconot_original", "strong_reject", "fortress_adversarial",
		"fortress_benign", "air_bench", "hle_text", "gpqa_diamond", "bfcl_irrelevance", "bfcl_simple"} {
		if !evals[e] {
			t.Errorf("no P0 check for %s: its fixture did not map to its profile", e)
		}
	}
}

// Re-ingesting replaces the replies, so the tables computed from the old
// ones go; a table that does not come from the logs (exposure) stays.
func TestReingestDropsDerivedTables(t *testing.T) {
	dir := ingested(t)
	rescored(t, dir)
	exp, err := os.ReadFile(store.TableFiles(dir, "logs")[0])
	if err != nil {
		t.Fatal(err)
	}
	ds, err := store.Create(testutil.Fixture, dir)
	if err != nil {
		t.Fatal(err)
	}
	td, _ := ds.TableDir("exposure")
	os.WriteFile(filepath.Join(td, "exposure.parquet"), exp, 0o644)
	if err := ds.Commit(); err != nil {
		t.Fatal(err)
	}
	ds.Close()
	ingesttest.Build(t, ingest.Config{Paths: []string{testutil.Path(t, "testdata", "logs", "zstd-basic.eval")}, Out: dir})
	for _, gone := range []string{"policy_scores", "headlines", "p0_check", "reply_outcomes", "log_assignments"} {
		if store.HasTable(dir, gone) {
			t.Errorf("%s survived a new ingest", gone)
		}
	}
	if !store.HasTable(dir, "exposure") {
		t.Errorf("exposure was removed")
	}
}

// replies belong to ingest (schema.Owner): rescore reads them and writes
// nothing there, byte for byte.
func TestRescoreLeavesRepliesUntouched(t *testing.T) {
	dir := ingested(t)
	before := tableBytes(t, dir, "replies")
	rescored(t, dir)
	if after := tableBytes(t, dir, "replies"); !bytes.Equal(before, after) || len(before) == 0 {
		t.Errorf("rescore rewrote replies (%d bytes before, %d after)", len(before), len(after))
	}
}

func tableBytes(t *testing.T, dir, table string) []byte {
	t.Helper()
	var all []byte
	for _, f := range store.TableFiles(dir, table) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(append(all, filepath.Base(f)...), b...)
	}
	return all
}

// A superseded log (ingest's log set) gets no assignment, so none of its rows
// is re-scored; --all-attempts assigns every log.
func TestSupersededLogsAreNotAssigned(t *testing.T) {
	study := testutil.LogSetStudy(t)
	for _, all := range []bool{false, true} {
		dir := ingesttest.Build(t, ingest.Config{Paths: []string{study}, AllAttempts: all})
		rescored(t, dir)
		r := testutil.Query(t, dir, `SELECT (SELECT count(*) FROM log_assignments), (SELECT count(*) FROM logs WHERE set_status = 'counted'), (SELECT count(*) FROM logs),
			(SELECT count(*) FROM log_assignments JOIN logs USING (log_id) WHERE set_status = 'superseded')`)[0]
		if r[0] != r[1] || r[3] != "0" || all != (r[1] == r[2]) {
			t.Errorf("all=%v: %s assignments, %s counted of %s logs, %s superseded assigned", all, r[0], r[1], r[2], r[3])
		}
	}
}
