package measures

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Without a manifest, the outputs that need one are written empty and listed
// as skipped with "manifest" among their missing inputs; the exploration
// outputs run over the replies.
func TestRunWithoutManifest(t *testing.T) {
	dir := writeDataset(t, studyGiven+exploreRepliesExtra)
	var out bytes.Buffer
	if err := Run(context.Background(), Config{Data: dir}, &out); err != nil {
		t.Fatal(err)
	}
	// One line names what a manifest would give (cost and the D1-D4
	// tables), none of them a line of its own.
	if !strings.Contains(out.String(), "  not computed without the manifest (--manifest): cost, d1a_truncation, d1b_non_refusal,") ||
		strings.Contains(out.String(), "  cost ") {
		t.Errorf("summary does not name what needs the manifest on one line:\n%s", out.String())
	}
	got := readOutput(t, dir, RunsTable, "output, status, list_contains(missing_inputs, 'manifest'), manifest, level", "output")
	free := map[string]bool{"class_rates": true, "rates_by_stop_reason": true, "rates_by_stop_category": true,
		"non_answer_rates": true, "truncation_by_max_tokens": true, "judge_calls_on_non_answers": true,
		"reply_sources": true, "log_accounting": true, "class_examples": true, "overview": true, "overview_classes": true,
		"turn_rates": true, "turn_examples": true}
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

// exploreRepliesExtra gives studyGiven the logs, a judge call and two turns
// of the model under test, the first a non-answer, so every manifest-free
// output has rows.
const exploreRepliesExtra = `
INSERT INTO logs (log_id, path, status, sample_count, invalidated) VALUES
  ('L1', '/logs/one.eval', 'success', 4, false), ('L3', '/logs/three.eval', 'success', 1, false),
  ('H1', '/logs/h1.eval', 'success', 5, false), ('H2', '/logs/h2.eval', 'success', 5, false);
INSERT INTO model_calls (log_id, sample_id, epoch, call_index, model, kind, judge_class, call_status) VALUES
  ('L1', 's2', 1, 1, 'openai/j', 'judge', 'usable', 'completed');
INSERT INTO logs (log_id, path, status, sample_count, invalidated) VALUES ('L4', '/logs/agent.eval', 'success', 1, false);
INSERT INTO replies (log_id, task, model, sample_id, epoch, member, class, class_rule, non_answer, final_class, final_class_rule, final_non_answer) VALUES
  ('L4', 'agent', 'openai/mut', 'a1', 1, 'samples/a1_epoch_1.json', 'truncated_empty', 'truncated_empty@v1', true, 'answer', 'answer@v1', false);
INSERT INTO model_calls (log_id, sample_id, epoch, call_index, model, kind, is_reply, call_status, text, reasoning_chars, tool_call_count, class, class_rule, non_answer) VALUES
  ('L4', 'a1', 1, 0, 'openai/mut', 'model_under_test', true, 'completed', '', 0, 0, 'truncated_empty', 'truncated_empty@v1', true),
  ('L4', 'a1', 1, 1, 'openai/mut', 'model_under_test', false, 'completed', 'ok', 0, 0, 'answer', 'answer@v1', false);
`
