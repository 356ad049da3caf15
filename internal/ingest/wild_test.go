package ingest_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// Every log of the wild corpus (real providers, inspect_ai 0.3.9 to 0.3.241,
// the R package vitals) ingests with the sample count inspect_ai 0.3.285's
// read_eval_log gives it in SAMPLES.tsv, one reply row per sample, and no
// error.
func TestWildCorpusIngests(t *testing.T) {
	corpus := testutil.WildCorpus(t)
	dir, _, stderr, err := runIngest(t, filepath.Join(corpus, "logs"))
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	tsv, err := os.ReadFile(filepath.Join(corpus, "SAMPLES.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(tsv)), "\n")
	if head := strings.Split(lines[0], "\t"); len(head) < 7 || head[0] != "file" || head[6] != "samples_read_by_inspect_ai" {
		t.Fatalf("SAMPLES.tsv columns changed: %v", head)
	}
	for _, line := range lines[1:] {
		f := strings.Split(line, "\t")
		file, status, samples := f[0], f[5], f[6]
		t.Run(file, func(t *testing.T) {
			rows := testutil.Query(t, dir, `SELECT status, sample_count,
			    (SELECT count(*) FROM replies r WHERE r.log_id = l.log_id)
			  FROM logs l WHERE path = ?`, filepath.Join(corpus, "logs", file))
			if len(rows) != 1 {
				t.Fatalf("logs rows: %d", len(rows))
			}
			if got, want := strings.Join(rows[0], " "), strings.Join([]string{status, samples, samples}, " "); got != want {
				t.Errorf("status/samples/replies %s, want %s", got, want)
			}
		})
	}
	if n := testutil.Query(t, dir, "SELECT count(*) FROM logs")[0][0]; n != strconv.Itoa(len(lines)-1) {
		t.Errorf("logs rows = %s, SAMPLES.tsv lists %d", n, len(lines)-1)
	}
	if n := testutil.Query(t, dir, "SELECT count(*) FROM ingest_errors")[0][0]; n != "0" {
		t.Errorf("ingest_errors rows: %s", n)
	}

	// What the corpus holds that mockllm logs do not (its README).
	for _, c := range []struct{ what, q, want string }{
		{"no placeholder or retried attempt is a reply",
			`SELECT count(*) FROM model_calls WHERE is_reply AND call_status NOT IN ('completed', 'failed')`, "0"},
		{"one reply call per model_event reply",
			`SELECT (SELECT count(*) FROM model_calls WHERE is_reply) = (SELECT count(*) FROM replies WHERE reply_source = 'model_event')`, "true"},
		{"placeholders listed before the completed call are skipped (commonsense-qa)",
			`SELECT sum(placeholders_skipped) > 0, count(*) FILTER (class = 'silent') FROM replies r JOIN logs l USING (log_id) WHERE l.path LIKE '%commonsense-qa%'`, "true 0"},
		{"failed attempts retried in the same span are attempts (kimi-k3)",
			`SELECT sum(failed_attempts) > 0, count(*) FILTER (failed_attempts > 0 AND first_attempt_error IS NULL), count(*) FILTER (class = 'silent')
			   FROM replies r JOIN logs l USING (log_id) WHERE l.model LIKE '%kimi-k3'`, "true 0 0"},
		{"the claude_code agent's replies come from sample.output, not its judge",
			`SELECT count(*), count(*) FILTER (reply_source = 'sample_output' AND class = 'answer' AND tools_offered IS NULL)
			   FROM replies r JOIN logs l USING (log_id) WHERE l.path LIKE '%2026-01-31T05-44-42%'`, "9 9"},
		{"a provider error is class error",
			`SELECT list(class) FROM replies r JOIN logs l USING (log_id) WHERE l.path LIKE '%2026-01-14T17-48-39%'`, "[error]"},
	} {
		rows := testutil.Query(t, dir, c.q)
		if len(rows) != 1 || strings.Join(rows[0], " ") != c.want {
			t.Errorf("%s: got %v, want %s", c.what, rows, c.want)
		}
	}
}
