package schema

import (
	"slices"
	"testing"
)

// Every declared table has exactly one owner, and no owner names a table
// that is not declared.
func TestEveryTableHasOneOwner(t *testing.T) {
	declared := map[string]bool{}
	for _, tb := range Tables() {
		declared[tb.Name] = true
		if Owner(tb.Name) == "" {
			t.Errorf("%s has no owner", tb.Name)
		}
	}
	for name := range owners {
		if !declared[name] {
			t.Errorf("owner declared for %s, which is no table", name)
		}
	}
	want := []string{"exposure", "ingest_errors", "logs", "model_calls", "replies", "scores"}
	if got := KeptWhenRepliesChange(); !slices.Equal(got, want) {
		t.Errorf("kept when replies change: %v, want %v", got, want)
	}
}
