package ingest

import (
	"strings"
	"testing"

	"empties/internal/evallog"
)

// Edge cases of the reply rule that the pinned writer cannot produce on
// demand (placeholders are left by writers of the past; an errored call that
// an agent follows with a different request). Each sample is hand-written in
// the log format (§4); the real-writer cases are fixtures (retry-first-
// attempt.eval, output-without-call.eval) and the wild corpus.
func TestReplyChoice(t *testing.T) {
	const (
		mut    = `"model": "openai/gpt-4o"`
		out    = `"output": {"model": "openai/gpt-4o", "choices": [{"message": {"role": "assistant", "content": %q}, "stop_reason": "stop"}]}`
		empty  = `"output": {"model": "openai/gpt-4o", "choices": [{"message": {"role": "assistant", "content": ""}, "stop_reason": "stop"}]}`
		input1 = `"input": [{"role": "user", "content": "Q"}]`
		input2 = `"input": [{"role": "user", "content": "Q"}, {"role": "assistant", "content": ""}, {"role": "user", "content": "again"}]`
	)
	o := func(text string) string { return strings.Replace(out, "%q", `"`+text+`"`, 1) }
	cases := []struct {
		name     string
		events   string
		output   string // sample.output, "" for none
		source   string
		text     string
		statuses string
		failed   int64
		skipped  int64
		tools    string
	}{
		{"placeholder listed before the completed call",
			`{"event": "model", ` + mut + `, ` + input1 + `, "tools": [], "pending": true, ` + empty + `},
			 {"event": "model", ` + mut + `, ` + input1 + `, "tools": [], "completed": "2025-04-10T08:09:52+00:00", ` + o("ANSWER: C") + `}`,
			"", "model_event", "ANSWER: C", "placeholder,completed", 0, 1, "false"},
		{"errored attempt retried in the same span",
			`{"event": "model", "span_id": "s1", ` + mut + `, ` + input1 + `, "tools": [{"name": "bash"}], "error": "Provider returned error", ` + empty + `},
			 {"event": "model", "span_id": "s1", ` + mut + `, ` + input1 + `, "tools": [{"name": "bash"}], ` + o("ok") + `}`,
			"", "model_event", "ok", "retried,completed", 1, 0, "true"},
		{"errored call followed by a new request is no retry: it failed, and is the reply",
			`{"event": "model", "span_id": "s1", ` + mut + `, ` + input1 + `, "tools": [], "error": "boom", ` + empty + `},
			 {"event": "model", "span_id": "s1", ` + mut + `, ` + input2 + `, "tools": [], ` + o("second") + `}`,
			"", "model_event", "", "failed,completed", 0, 0, "false"},
		{"errored call followed by the same request in another span is no retry",
			`{"event": "model", "span_id": "s1", ` + mut + `, ` + input1 + `, "tools": [], "error": "boom", ` + empty + `},
			 {"event": "model", "span_id": "s2", ` + mut + `, ` + input1 + `, "tools": [], ` + o("other") + `}`,
			"", "model_event", "", "failed,completed", 0, 0, "false"},
		{"a placeholder does not make an errored call retried",
			`{"event": "model", ` + mut + `, ` + input1 + `, "error": "boom", ` + empty + `},
			 {"event": "model", ` + mut + `, ` + input1 + `, "pending": true, ` + empty + `}`,
			"", "model_event", "", "failed,placeholder", 0, 0, "NULL"},
		{"only placeholders: sample.output is the reply",
			`{"event": "model", ` + mut + `, ` + input1 + `, "pending": true, ` + empty + `}`,
			o("from output"), "sample_output", "from output", "placeholder", 0, 1, "NULL"},
		{"sample.output equal to the judge's output is not the reply",
			`{"event": "span_begin", "id": "sc", "type": "scorer", "name": "model_graded_qa"},
			 {"event": "model", "span_id": "sc", ` + mut + `, ` + input1 + `, "tools": [], ` + o("GRADE: C") + `}`,
			o("GRADE: C"), "none", "", "completed", 0, 0, "NULL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := `{"id": 1, "epoch": 1, "events": [` + c.events + `]`
			if c.output != "" {
				raw += `, ` + c.output
			}
			raw += `}`
			d, err := evallog.DecodeSample([]byte(raw), "")
			if err != nil {
				t.Fatal(err)
			}
			rows, err := extract(&logContext{LogID: "l", Model: "openai/gpt-4o"}, "samples/1_epoch_1.json", d.View())
			if err != nil {
				t.Fatal(err)
			}
			r := rows.Reply
			var statuses []string
			for _, call := range rows.Calls {
				statuses = append(statuses, call.CallStatus)
			}
			tools := "NULL"
			if r.ToolsOffered != nil {
				tools = map[bool]string{true: "true", false: "false"}[*r.ToolsOffered]
			}
			got := []any{r.ReplySource, r.Text, strings.Join(statuses, ","), r.FailedAttempts, r.PlaceholdersSkipped, tools}
			want := []any{c.source, c.text, c.statuses, c.failed, c.skipped, c.tools}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("source, text, statuses, failed attempts, placeholders skipped, tools offered = %v, want %v", got, want)
					break
				}
			}
			if c.failed > 0 && (r.FirstAttemptError == nil || *r.FirstAttemptError == "") {
				t.Errorf("failed attempts without first_attempt_error")
			}
		})
	}
}
