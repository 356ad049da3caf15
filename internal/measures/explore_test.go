package measures

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// exploreReplies are logs read without a manifest: no log_assignments, so
// eval is the task, route the model and arm default. s1 of L1 has two
// epochs (weights 0.5), the others one. Wilson intervals below are
// statsmodels' proportion_confint(x, n, 0.05, "wilson").
const exploreReplies = `
INSERT INTO replies (log_id, task, model, sample_id, epoch, member, class, class_rule, non_answer, stop_reason,
  reply_source, max_tokens, max_tokens_source, text, text_chars, refusal, reasoning_chars, reasoning_redacted,
  reasoning_text, tool_call_count, tool_call_functions, failed_attempts, placeholders_skipped) VALUES
  ('L1', 'xstest', 'openai/a', 's1', 1, 'samples/s1_epoch_1.json', 'answer', 'answer@v1', false, 'stop', 'model_event', 256, 'eval', 'Sure.', 5, false, 0, false, '', 0, [], 2, 1),
  ('L1', 'xstest', 'openai/a', 's1', 2, 'samples/s1_epoch_2.json', 'truncated_empty', 'truncated_empty@v1', true, 'max_tokens', 'model_event', 256, 'eval', '', 0, false, 900, false, 'thinking', 0, [], 1, 0),
  ('L1', 'xstest', 'openai/a', 's2', 1, 'samples/s2_epoch_1.json', 'reasoning_only', 'reasoning_only@v1', true, 'stop', 'model_event', 256, 'eval', '', 0, false, 40, false, 'hmm', 0, [], 0, 0),
  ('L1', 'xstest', 'openai/a', 's3', 1, 'samples/s3_epoch_1.json', 'tool_only', 'tool_only@v1', false, 'tool_calls', 'sample_output', NULL, 'unset', '', 0, false, 0, false, '', 2, ['search', 'fetch'], 0, 3),
  ('L2', 'hle', 'openai/b', 'q 1/2', 1, 'samples[0]', 'silent', 'silent@v1', true, 'stop', 'model_event', NULL, 'unset', '', 0, false, 0, false, '', 0, [], 0, 0);
`

// exploreError is a second sample of the hle cell that raised: no reply at
// all (class error), never a non-answer.
const exploreError = `
INSERT INTO replies (log_id, task, model, sample_id, epoch, member, class, class_rule, non_answer, reply_source, max_tokens_source,
  text, text_chars, refusal, reasoning_chars, reasoning_redacted, reasoning_text, tool_call_count, tool_call_functions, failed_attempts,
  placeholders_skipped, sample_error) VALUES
  ('L2', 'hle', 'openai/b', 'q2', 1, 'samples[1]', 'error', 'error@v1', false, 'none', 'unset', '', 0, false, 0, false, '', 0, [], 0, 0,
   'RuntimeError(''boom'')');
`

const exploreLogs = `
INSERT INTO logs (log_id, path, status, sample_count, invalidated, set_status) VALUES
  ('L1', '/logs/run one/a.eval', 'success', 4, false, 'counted'),
  ('L2', '/logs/b.json', 'error', 1, true, 'counted'),
  ('L3', '/logs/b-old.json', 'success', 2, false, 'superseded');
`

const exploreErrors = `
INSERT INTO ingest_errors VALUES
  ('/logs/b.json', 'samples[1]', 'samples[1]: not an object'),
  ('/logs/broken.eval', NULL, 'broken.eval: not a zip archive');
`

const exploreCalls = `
INSERT INTO model_calls (log_id, sample_id, epoch, call_index, model, kind, judge_class, call_status) VALUES
  ('L1', 's1', 1, 1, 'openai/j', 'judge', 'usable', 'completed'),
  ('L1', 's1', 2, 1, 'openai/j', 'judge', 'usable', 'completed'),
  ('L1', 's1', 2, 2, 'openai/j', 'judge', 'usable', 'completed'),
  ('L1', 's1', 2, 3, 'openai/j', 'judge', NULL, 'retried'),
  ('L1', 's2', 1, 1, 'openai/j', 'judge', 'empty', 'completed'),
  ('L2', 'q 1/2', 1, 0, 'openai/b', 'model_under_test', NULL, 'completed');
`

func TestNonAnswerRates(t *testing.T) {
	runMeasures(t, "non_answer_rates", []measureCase{{
		name:  "per task × model, the sample as the unit",
		given: exploreReplies,
		want: []string{
			"hle | false | openai/b | default | 1 | 1 | 1 | 1 | 1 | 0.206549 | 1 | 0 | 0 | 0 | 0 | 0.793451 | 0 | 0 | 0 | 0 | 0.793451 | 0 | 0 | 0 | 0 | 0.793451 | 0.95",
			"xstest | false | openai/a | default | 3 | 4 | 2 | 1.5 | 0.5 | 0.125334 | 0.874666 | 1 | 1 | 0.333333 | 0.0614919 | 0.79234 | 1 | 1 | 0.333333 | 0.0614919 | 0.79234 | 0 | 0 | 0 | 0 | 0.561497 | 0.95",
		},
	}, {
		name:  "a sample that raised is no reply, beside the non-answers, not one of them",
		given: exploreReplies + exploreError,
		query: "SELECT eval, n_samples, n_replies, n_non_answer_replies, non_answer_rate, non_answer_ci_low, non_answer_ci_high, n_no_reply_replies, x_no_reply, no_reply_rate, no_reply_ci_low, no_reply_ci_high FROM non_answer_rates ORDER BY eval",
		want: []string{
			"hle | 2 | 2 | 1 | 0.5 | 0.0945312 | 0.905469 | 1 | 1 | 0.5 | 0.0945312 | 0.905469",
			"xstest | 3 | 4 | 2 | 0.5 | 0.125334 | 0.874666 | 0 | 0 | 0 | 0 | 0.561497",
		},
	}})
}

func TestOverview(t *testing.T) {
	runMeasures(t, "overview", []measureCase{{
		name:  "every route together and each route: non-answers, no reply and answers sum to 1",
		given: exploreReplies + exploreError,
		want: []string{
			"default | all | NULL | 2 | 2 | 2 | 2 | 5 | 6 | 3 | 2.5 | 0.5 | 0.170424 | 0.829576 | 1 | 1 | 0.2 | 0.0362241 | 0.624465 | 2 | 1.5 | 0.3 | 0.072584 | 0.701209 | 0.95",
			"default | route | openai/a | 1 | 1 | 1 | 1 | 3 | 4 | 2 | 1.5 | 0.5 | 0.125334 | 0.874666 | 0 | 0 | 0 | 0 | 0.561497 | 2 | 1.5 | 0.5 | 0.125334 | 0.874666 | 0.95",
			"default | route | openai/b | 1 | 1 | 1 | 1 | 2 | 2 | 1 | 1 | 0.5 | 0.0945312 | 0.905469 | 1 | 1 | 0.5 | 0.0945312 | 0.905469 | 0 | 0 | 0 | 0 | 0.65762 | 0.95",
		},
	}, {
		name:  "the same sample id in two tasks is two samples",
		given: exploreReplies + `INSERT INTO replies (log_id, task, model, sample_id, epoch, class, non_answer) VALUES ('L4', 'other', 'openai/a', 's1', 1, 'answer', false);`,
		query: "SELECT scope, route, n_evals, n_routes, n_cells, n_logs, n_samples, n_replies, non_answer_rate FROM overview ORDER BY scope, route",
		want: []string{
			"all | NULL | 3 | 2 | 3 | 3 | 5 | 6 | 0.5",
			"route | openai/a | 2 | 1 | 2 | 2 | 4 | 5 | 0.375",
			"route | openai/b | 1 | 1 | 1 | 1 | 1 | 1 | 1",
		},
	}})
}

func TestOverviewClasses(t *testing.T) {
	runMeasures(t, "overview_classes", []measureCase{{
		name:  "each class that occurs, as a non-answer, no reply or answer, of the scope's samples",
		given: exploreReplies + exploreError,
		want: []string{
			"default | all | NULL | answer | answer | 11 | 5 | 1 | 0.5 | 0.1 | 0.01053 | 0.537056 | 0.95",
			"default | all | NULL | error | no_reply | 1 | 5 | 1 | 1 | 0.2 | 0.0362241 | 0.624465 | 0.95",
			"default | all | NULL | reasoning_only | non_answer | 8 | 5 | 1 | 1 | 0.2 | 0.0362241 | 0.624465 | 0.95",
			"default | all | NULL | silent | non_answer | 9 | 5 | 1 | 1 | 0.2 | 0.0362241 | 0.624465 | 0.95",
			"default | all | NULL | tool_only | answer | 7 | 5 | 1 | 1 | 0.2 | 0.0362241 | 0.624465 | 0.95",
			"default | all | NULL | truncated_empty | non_answer | 6 | 5 | 1 | 0.5 | 0.1 | 0.01053 | 0.537056 | 0.95",
			"default | route | openai/a | answer | answer | 11 | 3 | 1 | 0.5 | 0.166667 | 0.0176528 | 0.690012 | 0.95",
			"default | route | openai/a | reasoning_only | non_answer | 8 | 3 | 1 | 1 | 0.333333 | 0.0614919 | 0.79234 | 0.95",
			"default | route | openai/a | tool_only | answer | 7 | 3 | 1 | 1 | 0.333333 | 0.0614919 | 0.79234 | 0.95",
			"default | route | openai/a | truncated_empty | non_answer | 6 | 3 | 1 | 0.5 | 0.166667 | 0.0176528 | 0.690012 | 0.95",
			"default | route | openai/b | error | no_reply | 1 | 2 | 1 | 1 | 0.5 | 0.0945312 | 0.905469 | 0.95",
			"default | route | openai/b | silent | non_answer | 9 | 2 | 1 | 1 | 0.5 | 0.0945312 | 0.905469 | 0.95",
		},
	}})
}

func TestTruncationByMaxTokens(t *testing.T) {
	runMeasures(t, "truncation_by_max_tokens", []measureCase{{
		name:  "each effective limit and its source",
		given: exploreReplies,
		want: []string{
			"hle | false | openai/b | default | unset | NULL | 1 | 1 | 0 | 0 | 0 | 0 | 0.793451 | 0 | 0 | 0 | 0 | 0.793451 | 0 | 0 | 0 | 0 | 0.793451 | 0.95",
			"xstest | false | openai/a | default | eval | 256 | 2 | 3 | 1 | 0.5 | 0.25 | 0.0266773 | 0.802133 | 1 | 0.5 | 0.25 | 0.0266773 | 0.802133 | 0 | 0 | 0 | 0 | 0.65762 | 0.95",
			"xstest | false | openai/a | default | unset | NULL | 1 | 1 | 0 | 0 | 0 | 0 | 0.793451 | 0 | 0 | 0 | 0 | 0.793451 | 0 | 0 | 0 | 0 | 0.793451 | 0.95",
		},
	}})
}

func TestReplySources(t *testing.T) {
	runMeasures(t, "reply_sources", []measureCase{{
		name:  "model event or sample.output, with the attempts and placeholders skipped",
		given: exploreReplies,
		want: []string{
			"hle | false | openai/b | default | model_event | 1 | 1 | 1 | 0 | 0 | 0 | 0",
			"xstest | false | openai/a | default | model_event | 3 | 2 | 2 | 2 | 3 | 1 | 1",
			"xstest | false | openai/a | default | sample_output | 1 | 1 | 0 | 0 | 0 | 1 | 3",
		},
	}})
}

func TestLogAccounting(t *testing.T) {
	runMeasures(t, "log_accounting", []measureCase{{
		name:  "read logs by status, the superseded one under superseded, and the unreadable file",
		given: exploreLogs + exploreErrors,
		want: []string{
			"error | 1 | 1 | 1 | 1",
			"success | 1 | 4 | 0 | 0",
			"superseded | 1 | 2 | 0 | 0",
			"unreadable | 1 | 0 | 0 | 1",
		},
	}})
}

func TestJudgeCallsOnNonAnswers(t *testing.T) {
	runMeasures(t, "judge_calls_on_non_answers", []measureCase{{
		name:  "judge calls of non-answers only; the answer's judge call is left out",
		given: exploreReplies + exploreCalls,
		want: []string{
			"xstest | false | openai/a | default | reasoning_only | openai/j | empty | completed | 1 | 1 | 1",
			"xstest | false | openai/a | default | truncated_empty | openai/j | (none) | retried | 1 | 1 | 1",
			"xstest | false | openai/a | default | truncated_empty | openai/j | usable | completed | 2 | 1 | 1",
		},
	}})
}

func TestClassExamples(t *testing.T) {
	runMeasures(t, "class_examples", []measureCase{{
		name:  "one example of each class, with the address that opens it",
		given: exploreReplies + exploreLogs,
		query: "SELECT class, draw, n_in_class, path, member, sample_id, epoch, view_command, view_url, tool_call_functions FROM class_examples ORDER BY class, draw",
		want: []string{
			"answer | 1 | 1 | /logs/run one/a.eval | samples/s1_epoch_1.json | s1 | 1 | inspect view --log-dir '/logs/run one' | http://127.0.0.1:7575/#/logs/a.eval/samples/sample/s1/1/ | ",
			"reasoning_only | 1 | 1 | /logs/run one/a.eval | samples/s2_epoch_1.json | s2 | 1 | inspect view --log-dir '/logs/run one' | http://127.0.0.1:7575/#/logs/a.eval/samples/sample/s2/1/ | ",
			"silent | 1 | 1 | /logs/b.json | samples[0] | q 1/2 | 1 | inspect view --log-dir '/logs' | http://127.0.0.1:7575/#/logs/b.json/samples/sample/q%201%2F2/1/ | ",
			"tool_only | 1 | 1 | /logs/run one/a.eval | samples/s3_epoch_1.json | s3 | 1 | inspect view --log-dir '/logs/run one' | http://127.0.0.1:7575/#/logs/a.eval/samples/sample/s3/1/ | search,fetch",
			"truncated_empty | 1 | 1 | /logs/run one/a.eval | samples/s1_epoch_2.json | s1 | 2 | inspect view --log-dir '/logs/run one' | http://127.0.0.1:7575/#/logs/a.eval/samples/sample/s1/2/ | ",
		},
	}, {
		name: "the prompt of the reply's call, not of a judge's or of a retried attempt",
		given: exploreReplies + exploreLogs + `
INSERT INTO model_calls (log_id, sample_id, epoch, call_index, model, kind, call_status, is_reply, prompt_text) VALUES
  ('L1', 's2', 1, 0, 'openai/a', 'model_under_test', 'retried', false, NULL),
  ('L1', 's2', 1, 1, 'openai/a', 'model_under_test', 'completed', true, 'Why is the sky blue?'),
  ('L1', 's2', 1, 2, 'openai/j', 'judge', 'completed', false, 'Grade this reply');`,
		query: "SELECT class, sample_id, non_answer, prompt_text FROM class_examples ORDER BY class, draw",
		want: []string{
			"answer | s1 | false | NULL",
			"reasoning_only | s2 | true | Why is the sky blue?",
			"silent | q 1/2 | true | NULL",
			"tool_only | s3 | false | NULL",
			"truncated_empty | s1 | true | NULL",
		},
	}, {
		name: "at most examples_per_class of a class, the same ones for the same seed",
		given: `INSERT INTO logs (log_id, path, sha256, status, sample_count, invalidated) VALUES ('L', '/l.eval', 'H', 'success', 5, false);
` + fiveAnswers("L"),
		query: "SELECT class, count(*), max(draw), max(n_in_class), string_agg(sample_id, ',' ORDER BY draw) FROM class_examples GROUP BY class",
		// md5('0/H/s<i>/1') orders s1, s3, s0 first (testParams: seed 0), as
		// Python's hashlib.md5 orders them.
		want: []string{"answer | 3 | 3 | 5 | s1,s3,s0"},
	}, {
		// log_id hashes the file's path: the same logs read from another
		// folder (another checkout, a copy) have other log_ids and must give
		// the same examples.
		name: "the draw follows the log's content, not where it lies",
		given: `INSERT INTO logs (log_id, path, sha256, status, sample_count, invalidated) VALUES ('M', '/elsewhere/l.eval', 'H', 'success', 5, false);
` + fiveAnswers("M"),
		query: "SELECT class, count(*), max(draw), max(n_in_class), string_agg(sample_id, ',' ORDER BY draw) FROM class_examples GROUP BY class",
		want:  []string{"answer | 3 | 3 | 5 | s1,s3,s0"},
	}})
}

// fiveAnswers inserts five answer replies s0..s4 of the log logID.
func fiveAnswers(logID string) string {
	return `INSERT INTO replies (log_id, task, model, sample_id, epoch, member, class, class_rule, reply_source, max_tokens_source, text, text_chars,
  refusal, reasoning_chars, reasoning_redacted, reasoning_text, tool_call_count, tool_call_functions)
SELECT '` + logID + `', 't', 'm', 's' || i, 1, 'samples/s' || i || '_epoch_1.json', 'answer', 'answer@v1', 'model_event', 'unset', 'x', 1,
  false, 0, false, '', 0, [] FROM range(5) r(i);`
}

// Without a manifest, the outputs that need one are written empty and listed
// as skipped with "manifest" among their missing inputs; the exploration
// outputs run over the replies.
func TestRunWithoutManifest(t *testing.T) {
	dir := writeDataset(t, studyGiven+exploreRepliesExtra)
	var out bytes.Buffer
	if err := Run(context.Background(), Options{Data: dir}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "skipped: needs the manifest (--manifest)") {
		t.Errorf("summary does not name the manifest:\n%s", out.String())
	}
	got := readOutput(t, dir, RunsTable, "output, status, list_contains(missing_inputs, 'manifest'), manifest, level", "output")
	free := map[string]bool{"class_rates": true, "rates_by_stop_reason": true, "rates_by_stop_category": true,
		"non_answer_rates": true, "truncation_by_max_tokens": true, "judge_calls_on_non_answers": true,
		"reply_sources": true, "log_accounting": true, "class_examples": true, "overview": true, "overview_classes": true}
	if len(got) != len(wantOutputs) {
		t.Fatalf("analyze_runs has %d rows, want %d:\n%s", len(got), len(wantOutputs), strings.Join(got, "\n"))
	}
	for _, row := range got {
		f := strings.Split(row, " | ")
		want := f[0] + " | skipped | true |  | 0.95"
		if free[f[0]] {
			want = f[0] + " | ok | false |  | 0.95"
		}
		if row != want {
			t.Errorf("analyze_runs row %q, want %q", row, want)
		}
	}
}

// exploreRepliesExtra gives studyGiven the logs and a judge call, so every
// manifest-free output has rows.
const exploreRepliesExtra = `
INSERT INTO logs (log_id, path, status, sample_count, invalidated) VALUES
  ('L1', '/logs/one.eval', 'success', 4, false), ('L3', '/logs/three.eval', 'success', 1, false),
  ('H1', '/logs/h1.eval', 'success', 5, false), ('H2', '/logs/h2.eval', 'success', 5, false);
INSERT INTO model_calls (log_id, sample_id, epoch, call_index, model, kind, judge_class, call_status) VALUES
  ('L1', 's2', 1, 1, 'openai/j', 'judge', 'usable', 'completed');
`
