package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"empties/internal/duck"
	"empties/internal/testutil"
)

// Log version 1 predates every writer we can run (inspect_ai < 0.3.18), so
// this one is written by hand, in the shape inspect_ai's models migrate on
// read (§1.7): a single sample `score`, results.scorer + results.metrics, a
// legacy `length` stop reason, and the 2024 transcript with tc:// refs.
const logV1 = `{
  "version": 1,
  "status": "success",
  "eval": {"task": "legacy_task", "model": "openai/gpt-4", "created": "2024-06-01T10:00:00-04:00",
           "dataset": {"name": "d", "samples": 1}, "task_version": 0, "config": {}},
  "plan": {"name": "plan", "steps": [], "config": {"max_tokens": 16}},
  "results": {"scorer": {"name": "match", "params": {}}, "metrics": {"accuracy": {"name": "accuracy", "value": 0.0}}},
  "stats": {"started_at": "", "completed_at": ""},
  "samples": [{
    "id": 1, "epoch": 1, "input": "q", "target": "t",
    "output": {"model": "gpt-4", "choices": [{"message": {"role": "assistant", "content": "tc://aaaa"}, "stop_reason": "length"}]},
    "score": {"value": "I", "answer": "partial"},
    "transcript": {
      "events": [
        {"event": "step", "action": "begin", "type": "solver", "name": "generate"},
        {"event": "model", "model": "openai/gpt-4", "input": [{"role": "user", "content": "q"}],
         "config": {"max_tokens": 16},
         "output": {"model": "gpt-4", "choices": [{"message": {"role": "assistant", "content": "tc://aaaa"}, "stop_reason": "length"}]}},
        {"event": "step", "action": "end", "type": "solver", "name": "generate"}
      ],
      "content": {"aaaa": "The beginning of an answer that was cut"}
    }
  }]
}`

func TestLogVersion1(t *testing.T) {
	p := filepath.Join(t.TempDir(), "2024-06-01T10-00-00-04-00_legacy.json")
	if err := os.WriteFile(p, []byte(logV1), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, _, stderr, err := runIngest(t, p)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	got := testutil.Query(t, dir, `SELECT l.version, l.task_version, s.scorer, s.value_float, s.answer, r.text, r.stop_reason,
	    r.class, r.max_tokens, r.max_tokens_source, l.created
	  FROM replies r JOIN logs l USING (log_id) JOIN scores s USING (log_id, sample_id, epoch)`)
	want := []string{"1", "0", "match", "0", "partial", "The beginning of an answer that was cut", "max_tokens",
		"truncated_text", "16", "call", "2024-06-01 14:00:00Z"}
	if len(got) != 1 {
		t.Fatalf("rows: %v", got)
	}
	for i := range want {
		if got[0][i] != want[i] {
			t.Errorf("column %d = %q, want %q (row %v)", i, got[0][i], want[i], got[0])
		}
	}
}

// ingest leaves DIR/empties.duckdb, whose views work in a fresh process.
func TestDuckDBViewFile(t *testing.T) {
	dir, _, _, err := runIngest(t, testutil.Path(t, "testdata", "logs", "zstd-basic.eval"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := duck.Open(filepath.Join(dir, "empties.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(context.Background(), "SELECT count(*) FROM replies JOIN logs USING (log_id) JOIN scores USING (log_id, sample_id, epoch)").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("joined rows through the view file: %d, want 3", n)
	}
}
