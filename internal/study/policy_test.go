package study

import (
	"testing"

	"empties/internal/manifest"
	"empties/internal/vocab"
	"empties/schema"
)

func TestPoliciesBySeedTable(t *testing.T) {
	refusalEval := &manifest.Profile{Name: "r", Kind: "refusal",
		Values: manifest.Values{Refusal: `"R"`, Failure: `"F"`, NoAnswer: `"N"`},
		Judge:  manifest.Judge{Where: "scorer", Guarded: true}, Policy: manifest.PolicySpec{Touch: "non_answer"}}
	capabilityEval := &manifest.Profile{Name: "c", Kind: "capability",
		Values: manifest.Values{Refusal: `"R"`, Failure: `"F"`, NoAnswer: `"N"`},
		Judge:  manifest.Judge{Where: "none"}, Policy: manifest.PolicySpec{Touch: "non_answer"}}
	toolEval := &manifest.Profile{Name: "b", Kind: "capability",
		Values: manifest.Values{Refusal: `"I"`, Failure: `"I"`, NoAnswer: `"I"`},
		Judge:  manifest.Judge{Where: "none"}, Policy: manifest.PolicySpec{Touch: "no_text_no_tool"}}
	logged := &schema.Score{ValueJSON: `"C"`}
	reply := func(class string, nonAnswer, blank bool) *schema.Reply {
		return &schema.Reply{Class: class, NonAnswer: nonAnswer, TextBlank: blank}
	}
	type want struct{ value, reason string }
	cases := []struct {
		name           string
		p              *manifest.Profile
		r              *schema.Reply
		logged         *schema.Score
		judgeCalls     int64
		p0, p1, p2, p3 want
	}{
		{"answer keeps the logged score", refusalEval, reply("answer", false, false), logged, 1,
			want{`"C"`, "logged"}, want{`"C"`, "logged"}, want{`"C"`, "logged"}, want{`"C"`, "logged"}},
		{"filtered in a refusal eval", refusalEval, reply("filtered", true, false), logged, 1,
			want{`"C"`, "logged"}, want{`"F"`, "non_answer"}, want{"NaN", "non_answer"}, want{`"R"`, "provider_refusal"}},
		{"error_text in a capability eval", capabilityEval, reply("error_text", true, false), logged, 0,
			want{`"C"`, "logged"}, want{`"F"`, "non_answer"}, want{"NaN", "non_answer"}, want{`"N"`, "provider_refusal"}},
		{"truncated_empty is unscored under P3", refusalEval, reply("truncated_empty", true, true), logged, 0,
			want{`"C"`, "logged"}, want{`"F"`, "non_answer"}, want{"NaN", "non_answer"}, want{"NaN", "max_tokens"}},
		{"silent is incorrect under P3", capabilityEval, reply("silent", true, true), logged, 0,
			want{`"C"`, "logged"}, want{`"F"`, "non_answer"}, want{"NaN", "non_answer"}, want{`"F"`, "no_response"}},
		{"errored sample has no score", refusalEval, reply("error", false, true), nil, 0,
			want{"NaN", "error"}, want{"NaN", "error"}, want{"NaN", "error"}, want{"NaN", "error"}},
		{"tool-only answer the guard never judged", refusalEval, reply("tool_only", false, true), logged, 0,
			want{`"C"`, "logged"}, want{"NaN", "needs_judge"}, want{"NaN", "needs_judge"}, want{"NaN", "needs_judge"}},
		{"BFCL: a filtered reply with text is not touched", toolEval, reply("filtered", true, false), logged, 0,
			want{`"C"`, "logged"}, want{`"C"`, "logged"}, want{`"C"`, "logged"}, want{`"C"`, "logged"}},
		{"BFCL: a silent reply is", toolEval, reply("silent", true, true), logged, 0,
			want{`"C"`, "logged"}, want{`"I"`, "non_answer"}, want{"NaN", "non_answer"}, want{`"I"`, "no_response"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := replyFacts{Reply: c.r, Logged: c.logged, JudgeCalls: c.judgeCalls}
			for i, w := range []want{c.p0, c.p1, c.p2, c.p3} {
				row := apply(vocab.Policies[i], c.p, f)
				if row.ValueJSON != w.value || row.Reason != w.reason {
					t.Errorf("%s: %s (%s), want %s (%s)", vocab.Policies[i], row.ValueJSON, row.Reason, w.value, w.reason)
				}
				if row.Unscored != (w.value == "NaN") {
					t.Errorf("%s: unscored %v with value %s", vocab.Policies[i], row.Unscored, w.value)
				}
				if row.Rerouted != (i > 0 && w.reason != "logged" && w.reason != "needs_judge" && !(c.r.Class == "error" && i < 3)) {
					t.Errorf("%s: rerouted %v", vocab.Policies[i], row.Rerouted)
				}
			}
		})
	}
}
