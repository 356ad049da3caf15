package schema

import (
	"slices"
	"testing"
)

// Every declared table has an owner among the stages, a key of its own
// columns, and a row type of its own; the tables kept when the replies
// change are ingest's and exposure.
func TestEveryTableHasAnOwnerAndAKey(t *testing.T) {
	stages := []string{StageIngest, StageClassify, StageRescore, StageSelect, StageDecide, StageExposure}
	seen := map[string]bool{}
	for _, tb := range Tables() {
		if seen[tb.Name] {
			t.Errorf("%s is declared twice", tb.Name)
		}
		seen[tb.Name] = true
		for _, w := range tb.Writers() {
			if !slices.Contains(stages, w) {
				t.Errorf("%s: writer %q is no stage", tb.Name, w)
			}
		}
		if len(tb.Key) == 0 {
			t.Errorf("%s has no key", tb.Name)
		}
		cols := map[string]bool{}
		for _, c := range tb.Columns() {
			cols[c.Name] = true
		}
		for _, k := range tb.Key {
			if !cols[k] {
				t.Errorf("%s: key column %s is not a column", tb.Name, k)
			}
		}
	}
	if got := Owner("decisions"); got != StageDecide {
		t.Errorf("decisions owned by %q", got)
	}
	if got := Owner("class_rates"); got != StageAnalyze {
		t.Errorf("an analysis output owned by %q, want analyze", got)
	}
	want := []string{"exposure", "ingest_errors", "logs", "model_calls", "replies", "scores"}
	if got := KeptWhenRepliesChange(); !slices.Equal(got, want) {
		t.Errorf("kept when replies change: %v, want %v", got, want)
	}
}
