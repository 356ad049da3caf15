package ingest_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"empties/internal/testutil"
)

// The differential test: scripts/difftest/difftest.py reads every log of the
// wild corpus, the inspect-ai-tests corpus and the project's fixtures with
// the pinned inspect_ai's read_eval_log, and checks every sample against the
// rows ingest wrote: exactly one reply row, and the reply the rule picks in
// inspect_ai's own object model (same event position and timestamp, same
// text, same stop reason, same call statuses).
func TestDifferentialAgainstInspect(t *testing.T) {
	paths := []string{
		filepath.Join(testutil.WildCorpus(t), "logs"),
		testutil.SharedCorpus(t),
		testutil.Path(t, "testdata", "logs"),
		testutil.Path(t, "testdata", "classify"),
		testutil.Path(t, "testdata", "profiles"),
	}
	if n := runDifftest(t, paths...); n < 2000 {
		t.Fatalf("only %d reply rows", n)
	}
}

// runDifftest ingests paths and checks every sample read_eval_log reads
// there against the rows (scripts/difftest/difftest.py).
// It needs the project's .venv (`make venv`); without it the test fails,
// it is not skipped. It returns the number of reply rows checked.
func runDifftest(t *testing.T, paths ...string) int {
	t.Helper()
	python := testutil.Path(t, ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("the differential test needs the pinned inspect_ai in .venv (run `make venv`): %v", err)
	}
	dir, _, stderr, err := runIngest(t, paths...)
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	rows := testutil.Query(t, dir, `
	  WITH calls AS (
	    SELECT log_id, sample_id, epoch, list(call_status ORDER BY call_index) AS statuses,
	           any_value(call_index) FILTER (is_reply) AS call_index, any_value(timestamp) FILTER (is_reply) AS ts
	    FROM model_calls GROUP BY ALL)
	  SELECT l.path, r.sample_id, r.epoch, r.reply_source, r.text, coalesce(r.stop_reason, 'NULL'),
	         coalesce(c.call_index::VARCHAR, 'NULL'), coalesce(strftime(c.ts AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%f+00:00'), 'NULL'), coalesce(to_json(c.statuses)::VARCHAR, '[]')
	  FROM replies r JOIN logs l USING (log_id) LEFT JOIN calls c USING (log_id, sample_id, epoch)`)
	f, err := os.Create(filepath.Join(t.TempDir(), "rows.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	null := func(s string) any {
		if s == "NULL" {
			return nil
		}
		return s
	}
	for _, r := range rows {
		epoch, _ := strconv.Atoi(r[2])
		var callIndex any
		if r[6] != "NULL" {
			callIndex, _ = strconv.Atoi(r[6])
		}
		var statuses []string
		if err := json.Unmarshal([]byte(r[8]), &statuses); err != nil {
			t.Fatalf("statuses %q: %v", r[8], err)
		}
		if statuses == nil {
			statuses = []string{}
		}
		if err := enc.Encode(map[string]any{
			"path": r[0], "sample_id": r[1], "epoch": epoch, "reply_source": r[3], "text": r[4],
			"stop_reason": null(r[5]), "call_index": callIndex, "timestamp": null(r[7]), "statuses": statuses,
		}); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	cmd := exec.Command(python, append([]string{testutil.Path(t, "scripts", "difftest", "difftest.py"), f.Name()}, paths...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("difftest: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	return len(rows)
}
