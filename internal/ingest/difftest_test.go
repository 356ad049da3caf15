package ingest_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/cliutil"
	"empties/internal/testutil"
)

// The differential test: scripts/difftest/difftest.py reads every log of the
// wild corpus, the inspect-ai-tests corpus and the project's fixtures with
// the pinned inspect_ai's read_eval_log, and checks every sample against the
// rows ingest wrote: exactly one reply row, and the reply the rule picks in
// inspect_ai's own object model (same event position and timestamp, same
// text, same stop reason, same call statuses), and the same of the final
// reply (the rule final: replies.final_call_index and that call's row).
func TestDifferentialAgainstInspect(t *testing.T) {
	paths := []string{
		filepath.Join(testutil.WildCorpus(t), "logs"),
		testutil.SharedCorpus(t),
		testutil.Path(t, "testdata", "logs"),
		testutil.Path(t, "testdata", "classify"),
		testutil.Path(t, "testdata", "profiles"),
		testutil.Path(t, "testdata", "turns"),
	}
	if n := runDifftest(t, false, nil, paths...); n < 2000 {
		t.Fatalf("only %d reply rows", n)
	}
}

// runDifftest ingests paths and checks every sample read_eval_log reads
// there against the rows (scripts/difftest/difftest.py), and every file it
// refuses against ingest_errors; args are more arguments of the script
// (--verdicts, --differences). Files that cannot be read are a failure of
// the test unless unreadable is set. It needs the project's .venv (`make
// venv`); without it the test fails, it is not skipped. It returns the
// number of reply rows checked.
func runDifftest(t *testing.T, unreadable bool, args []string, paths ...string) int {
	t.Helper()
	python := testutil.Path(t, ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("the differential test needs the pinned inspect_ai in .venv (run `make venv`): %v", err)
	}
	dir, res, stderr, err := runIngest(t, paths...)
	var partial *cliutil.PartialError
	if err != nil && !(unreadable && errors.As(err, &partial)) {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	tmp := t.TempDir()
	rows := jsonLines(t, dir, filepath.Join(tmp, "rows.jsonl"), `
	  WITH calls AS (
	    SELECT log_id, sample_id, epoch, list(call_status ORDER BY call_index) AS statuses,
	           any_value(call_index) FILTER (is_reply) AS call_index, any_value(timestamp) FILTER (is_reply) AS ts
	    FROM model_calls GROUP BY ALL),
	  finals AS (
	    SELECT r.log_id, r.sample_id, r.epoch, m.text, m.stop_reason, m.timestamp
	    FROM replies r JOIN model_calls m ON m.log_id = r.log_id AND m.sample_id = r.sample_id AND m.epoch = r.epoch AND m.call_index = r.final_call_index)
	  SELECT json_object('path', l.path, 'sample_id', r.sample_id, 'epoch', r.epoch, 'reply_source', r.reply_source,
	           'text', r.text, 'stop_reason', r.stop_reason, 'call_index', c.call_index, 'timestamp', `+isoTime("c.ts")+`,
	           'statuses', coalesce(c.statuses, []::VARCHAR[]), 'class', r.class,
	           'started_at', `+isoTime("r.started_at")+`, 'completed_at', `+isoTime("r.completed_at")+`,
	           'total_time', r.total_time, 'working_time', r.working_time,
	           'final_call_index', r.final_call_index, 'final_text', CASE WHEN r.final_call_index IS NULL THEN r.text ELSE f.text END,
	           'final_stop_reason', CASE WHEN r.final_call_index IS NULL THEN r.stop_reason ELSE f.stop_reason END,
	           'final_timestamp', `+isoTime("f.timestamp")+`)::VARCHAR
	  FROM replies r JOIN logs l USING (log_id) LEFT JOIN calls c USING (log_id, sample_id, epoch) LEFT JOIN finals f USING (log_id, sample_id, epoch)`)
	jsonLines(t, dir, filepath.Join(tmp, "errors.jsonl"), `SELECT json_object('path', path, 'member', member, 'error', error)::VARCHAR FROM ingest_errors`)
	// The files ingest skipped as no logs.
	var skipped []string
	for _, sk := range res.SkippedFiles {
		skipped = append(skipped, sk.Path)
	}
	os.WriteFile(filepath.Join(tmp, "skipped.txt"), []byte(strings.Join(skipped, "\n")+"\n"), 0o644)
	script := append([]string{testutil.Path(t, "scripts", "difftest", "difftest.py"), filepath.Join(tmp, "rows.jsonl"),
		"--errors", filepath.Join(tmp, "errors.jsonl"), "--skipped", filepath.Join(tmp, "skipped.txt")}, args...)
	cmd := exec.Command(python, append(script, paths...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("difftest: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	return rows
}

// isoTime formats a TIMESTAMP WITH TIME ZONE as Python's isoformat() of the
// UTC instant.
func isoTime(col string) string {
	return "strftime(" + col + " AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%f+00:00')"
}

// jsonLines writes the one JSON text column q returns to file, a line per
// row, and returns the number of rows.
func jsonLines(t *testing.T, dir, file, q string) int {
	t.Helper()
	rows := testutil.Query(t, dir, q)
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r[0])
		b.WriteByte('\n')
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

// The malformed logs (testdata/malformed, each a log the pinned inspect_ai
// wrote with one thing broken; scripts/fixtures/malformed_logs.py): for
// every file empties gives read_eval_log's verdict, reading the samples it
// reads with the same values, or reporting the file unreadable where it
// refuses it, but for the differences DIFFERENCES.tsv states (and the
// README). VERDICTS.tsv, inspect_ai's verdicts as written by the script,
// must still be what the pinned inspect_ai says.
func TestMalformedLogsGetInspectsVerdict(t *testing.T) {
	dir := testutil.Path(t, "testdata", "malformed")
	runDifftest(t, true, []string{"--verdicts", filepath.Join(dir, "VERDICTS.tsv"), "--differences", filepath.Join(dir, "DIFFERENCES.tsv")}, dir)
}
