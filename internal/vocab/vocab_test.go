package vocab_test

import (
	"testing"

	"empties/internal/vocab"
	"empties/schema"
)

// Every column of the vocabulary is a declared VARCHAR column.
func TestColumnsAreDeclared(t *testing.T) {
	for _, c := range vocab.Columns() {
		tb, ok := schema.Lookup(c.Table)
		if !ok {
			t.Errorf("%s.%s: no table %s in schema/", c.Table, c.Column, c.Table)
			continue
		}
		found := false
		for _, col := range tb.Columns() {
			if col.Name == c.Column {
				found = true
				if col.Type != "VARCHAR" {
					t.Errorf("%s.%s is %s", c.Table, c.Column, col.Type)
				}
			}
		}
		if !found || len(c.Values) == 0 {
			t.Errorf("%s.%s: declared %v, %d values", c.Table, c.Column, found, len(c.Values))
		}
	}
}

// Every class has a definition: its meaning and how it counts, in the
// classifier's order, agreeing with the non-answer rule and the not-replies.
func TestEveryClassIsDefined(t *testing.T) {
	v := vocab.Export()
	if len(v.Definitions) != len(v.Classes) {
		t.Fatalf("%d definitions for %d classes", len(v.Definitions), len(v.Classes))
	}
	in := func(c string, set []string) bool {
		for _, s := range set {
			if s == c {
				return true
			}
		}
		return false
	}
	for i, d := range v.Definitions {
		if d.Class != v.Classes[i] || d.Meaning == "" {
			t.Errorf("definition %d: %+v, class %s", i, d, v.Classes[i])
		}
		want := vocab.CountsAnswer
		switch {
		case in(d.Class, v.NotReplies):
			want = vocab.CountsNoReply
		case in(d.Class, v.NonAnswer.Classes):
			want = vocab.CountsNonAnswer
		case in(d.Class, v.NonAnswer.UnlessToolsOffered):
			want = vocab.CountsNonAnswerUnlessOffered
		}
		if d.CountsAs != want {
			t.Errorf("%s counts as %s, want %s", d.Class, d.CountsAs, want)
		}
	}
}

// The closed columns the tables' writers fill with constants are in the
// vocabulary, and each set is named by a column.
func TestClosedColumnsAreInTheVocabulary(t *testing.T) {
	have := map[string]bool{}
	used := map[string]bool{}
	for _, c := range vocab.Columns() {
		have[c.Table+"."+c.Column] = true
		used[c.Set] = true
	}
	for _, want := range []string{"model_calls.call_status", "replies.reply_source", "model_calls.kind_reason",
		"reply_outcomes.form", "reruns.status", "p0_check.status", "replies.max_tokens_source", "scores.value_kind",
		"logs.status", "model_calls.cache", "log_assignments.arm", "log_assignments.part", "policy_scores.arm",
		"headlines.arm", "judge_verdicts.arm", "reply_outcomes.arm", "reply_outcomes.part", "reruns.arm",
		"planned_reruns.arm", "study_evals.kind", "study_evals.judge_where", "decisions.verdict"} {
		if !have[want] {
			t.Errorf("%s is not in the vocabulary", want)
		}
	}
	for name := range vocab.Sets() {
		if !used[name] {
			t.Errorf("set %s is no column's", name)
		}
	}
}
