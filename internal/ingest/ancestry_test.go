package ingest

import (
	"fmt"
	"testing"
)

// A span's scoring is its whole ancestry's: nearest scorer name, judge when
// a scorer or scorers span is anywhere above, at any depth; a parent chain
// that loops (a damaged log) ends, and every span of the loop sees the
// whole loop.
func TestSpanAncestry(t *testing.T) {
	spans := map[string]span{
		"scorers": {typ: "scorers", name: "scorers"},
		"sc":      {parent: "scorers", typ: "scorer", name: "model_graded_qa"},
		"solver":  {typ: "solver", name: "generate"},
		// a loop x -> y -> z -> x, with a scorer in it, and a span below it
		"x":     {parent: "y", name: "x"},
		"y":     {parent: "z", typ: "scorer", name: "loop_scorer"},
		"z":     {parent: "x", typ: "scorer", name: "z_scorer"},
		"below": {parent: "x", name: "below"},
		// a loop without a scorer
		"p": {parent: "q"}, "q": {parent: "p"},
		"orphan": {parent: "missing"},
	}
	const depth = 50_000
	parent := "sc"
	for d := range depth {
		id := fmt.Sprint("d", d)
		spans[id] = span{parent: parent, name: id}
		parent = id
	}
	spans["solverchild"] = span{parent: "solver"}
	deepest := parent
	name := func(s *string) string {
		if s == nil {
			return "nil"
		}
		return *s
	}
	for _, c := range []struct {
		id     string
		judge  bool
		scorer string
	}{
		{deepest, true, "model_graded_qa"}, // first, so nothing is memoized yet
		{"d0", true, "model_graded_qa"},
		{"sc", true, "model_graded_qa"},
		{"scorers", true, "nil"},
		{"solver", false, "nil"},
		{"solverchild", false, "nil"},
		{"below", true, "loop_scorer"},
		{"x", true, "loop_scorer"},
		{"y", true, "loop_scorer"},
		{"z", true, "z_scorer"},
		{"p", false, "nil"},
		{"q", false, "nil"},
		{"orphan", false, "nil"},
		{"missing", false, "nil"},
		{"", false, "nil"},
	} {
		for _, fresh := range []bool{true, false} {
			tree := newSpanTree(spans)
			if !fresh { // answered after every other span has been
				for id := range spans {
					tree.of(id)
				}
			}
			got := tree.of(c.id)
			if got.judge != c.judge || name(got.scorer) != c.scorer {
				t.Errorf("%s (fresh %v): judge %v scorer %s, want %v %s", c.id, fresh, got.judge, name(got.scorer), c.judge, c.scorer)
			}
		}
	}
}
