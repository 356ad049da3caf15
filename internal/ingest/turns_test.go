package ingest_test

import (
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// Every turn of an agent has a class, and the final reply stands beside the
// first: the real inspect_ai's tool loop and react agent, scripted turn by
// turn (testdata/turns, scripts/fixtures/turns_fixtures.py).
func TestEveryTurnHasAClass(t *testing.T) {
	dir, _, stderr, err := runIngest(t, testutil.Path(t, "testdata", "turns"))
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	got := map[string]string{}
	for _, r := range testutil.Query(t, dir, `SELECT sample_id, class, final_call_index, final_class, final_class_rule, final_non_answer, generations, non_answer_generations,
	    (SELECT string_agg(class, ' ' ORDER BY call_index) FROM model_calls m WHERE m.log_id = r.log_id AND m.sample_id = r.sample_id AND m.epoch = r.epoch)
	  FROM replies r`) {
		got[r[0]] = strings.Join(r[1:], " ")
	}
	for id, want := range map[string]string{
		// sample: first class, final call, final class and rule, final non-answer, generations, non-answer generations, each turn's class
		"tools-then-answer":     "tool_only 1 answer answer@v1 false 2 0 tool_only answer",
		"tools-then-silent":     "tool_only 2 silent silent@v1 true 3 1 tool_only tool_only silent",
		"tools-then-truncated":  "tool_only 1 truncated_empty truncated_empty@v1 true 2 1 tool_only truncated_empty",
		"one-turn-answer":       "answer 0 answer answer@v1 false 1 0 answer",
		"react-silent-mid-turn": "tool_only 2 tool_only tool_only@v1 false 3 1 tool_only silent tool_only",
		"react-reasoning-first": "reasoning_only 2 tool_only tool_only@v1 false 3 1 reasoning_only tool_only tool_only",
		"react-filtered-final":  "tool_only 3 filtered filtered@v1 true 4 3 tool_only filtered filtered filtered",
		"react-one-turn":        "tool_only 0 tool_only tool_only@v1 false 1 0 tool_only",
	} {
		if got[id] != want {
			t.Errorf("%s: %q, want %q", id, got[id], want)
		}
	}
	if len(got) != 8 {
		t.Errorf("%d replies, want the 8 scenarios", len(got))
	}
}

// On the shared corpora and the demo: every generation of the model under
// test has a class and no other call has one; generations and
// non_answer_generations count them; the final reply is the last of them;
// the reply call's own class is the reply's (unless the sample raised); and
// on every sample with at most one generation, first and final are the same
// call with the same class (README "How the reply is chosen").
func TestFirstAndFinalAreTheSameCallOnSingleTurnSamples(t *testing.T) {
	paths := []string{testutil.SharedCorpus(t), filepath.Join(testutil.WildCorpus(t), "logs"), testutil.Path(t, "data", "demo", "logs")}
	dir, _, stderr, err := runIngest(t, paths...)
	if err != nil && !strings.Contains(err.Error(), "could not be read") {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	const calls = `(SELECT log_id, sample_id, epoch, count(class) AS gens, count(*) FILTER (non_answer) AS na,
	    max(call_index) FILTER (class IS NOT NULL) AS last, any_value(call_index) FILTER (is_reply) AS reply,
	    any_value(class) FILTER (is_reply) AS reply_class
	  FROM model_calls GROUP BY ALL)`
	for _, c := range []struct{ what, q, want string }{
		{"a class exactly on the generations of the model under test",
			`SELECT count(*) FROM model_calls WHERE (class IS NOT NULL) <> (kind = 'model_under_test' AND call_status IN ('completed', 'failed'))
			   OR (class IS NULL) <> (class_rule IS NULL) OR (class IS NULL) <> (non_answer IS NULL)`, "0"},
		{"generations and non-answer generations count them; the final call is the last",
			`SELECT count(*) FROM replies r LEFT JOIN ` + calls + ` c USING (log_id, sample_id, epoch)
			   WHERE r.generations <> coalesce(c.gens, 0) OR r.non_answer_generations <> coalesce(c.na, 0)
			   OR r.final_call_index IS DISTINCT FROM c.last`, "0"},
		{"the reply call's own class is the reply's where the sample did not raise",
			`SELECT count(*) FROM replies r JOIN ` + calls + ` c USING (log_id, sample_id, epoch)
			   WHERE r.reply_source = 'model_event' AND r.sample_error IS NULL AND c.reply_class IS DISTINCT FROM r.class`, "0"},
		{"first and final are the same call with the same class on every single-turn sample",
			`SELECT count(*) FROM replies r LEFT JOIN ` + calls + ` c USING (log_id, sample_id, epoch)
			   WHERE r.generations <= 1 AND (r.final_call_index IS DISTINCT FROM c.reply
			     OR r.final_class <> r.class OR r.final_class_rule <> r.class_rule OR r.final_non_answer <> r.non_answer)`, "0"},
		{"the corpora hold single-turn and multi-turn samples, and both kinds of reply without a call",
			`SELECT count(*) FILTER (generations = 1) > 1000, count(*) FILTER (generations > 1) > 100,
			   count(*) FILTER (generations = 0 AND reply_source = 'sample_output') > 0, count(*) FILTER (generations = 0 AND reply_source = 'none') > 0
			 FROM replies`, "true true true true"},
	} {
		if rows := testutil.Query(t, dir, c.q); len(rows) != 1 || strings.Join(rows[0], " ") != c.want {
			t.Errorf("%s: got %v, want %s", c.what, rows, c.want)
		}
	}
}
