package classify_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/classify"
	"empties/internal/ingest/ingesttest"
	"empties/internal/reclassify"
	"empties/internal/testutil"
)

// The seed's class table, in its order (first match wins).
var seedOrder = []string{"error", "no_choices", "filtered", "refusal_flag", "error_text", "truncated_empty",
	"tool_only", "reasoning_only", "silent", "truncated_text", "answer"}

func TestRulesFollowTheSeedsOrder(t *testing.T) {
	var got []string
	for _, r := range classify.OrderedRules() {
		if len(got) == 0 || got[len(got)-1] != r.Class {
			got = append(got, r.Class)
		}
	}
	if strings.Join(got, " ") != strings.Join(seedOrder, " ") {
		t.Fatalf("rule classes in order %v, seed %v", got, seedOrder)
	}
}

// golden.tsv: one fixture log per provider shape and class, written by the
// real inspect_ai through mockllm (scripts/fixtures/classify_fixtures.py),
// with the class the seed's first-match order gives that shape.
func TestGoldenClasses(t *testing.T) {
	root := testutil.Path(t, "testdata", "classify")
	dir := ingesttest.Dataset(t, root)
	tsv, err := os.ReadFile(filepath.Join(root, "golden.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(tsv)), "\n")
	if len(lines) < 27 {
		t.Fatalf("golden.tsv has %d rows", len(lines)-1)
	}
	seen := map[string]bool{}
	for _, line := range lines[1:] {
		f := strings.Split(line, "\t")
		fixture, sampleID, class, rule, tools, nonAnswer := f[0], f[1], f[2], f[3], f[4], f[5]
		seen[class] = true
		t.Run(fixture, func(t *testing.T) {
			rows := testutil.Query(t, dir, `SELECT class, class_rule, tools_offered::VARCHAR, non_answer::VARCHAR
			  FROM replies r JOIN logs l USING (log_id) WHERE l.path = ? AND r.sample_id = ?`,
				filepath.Join(root, fixture), sampleID)
			if len(rows) != 1 {
				t.Fatalf("%d reply rows", len(rows))
			}
			want := []string{class, rule + "@" + classify.Version, tools, nonAnswer}
			if strings.Join(rows[0], " ") != strings.Join(want, " ") {
				t.Errorf("class, rule, tools offered, non-answer = %v, want %v", rows[0], want)
			}
		})
	}
	for _, c := range seedOrder {
		if !seen[c] {
			t.Errorf("no golden fixture for class %s", c)
		}
	}

	// classify --data recomputes the same classes from the stored fields.
	before := testutil.Query(t, dir, "SELECT sample_id, class_rule, non_answer FROM replies ORDER BY ALL")
	res, err := reclassify.Dataset(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	after := testutil.Query(t, dir, "SELECT sample_id, class_rule, non_answer FROM replies ORDER BY ALL")
	if len(before) != len(after) || res.Changed != 0 || res.Turns != 0 || len(res.Dropped) != 0 {
		t.Fatalf("reclassify changed the data: %d replies and %d turns changed rule, %v dropped", res.Changed, res.Turns, res.Dropped)
	}
	for i := range before {
		if strings.Join(before[i], " ") != strings.Join(after[i], " ") {
			t.Errorf("reclassify: %v became %v", before[i], after[i])
		}
	}
}

// Judge calls get PaperBench's classes: the order matters where signals
// overlap (an empty reply cut at max_tokens is "empty", not "truncated").
func TestJudgeClasses(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	cases := []struct {
		name string
		in   classify.JudgeInput
		want string
	}{
		{"no choices", classify.JudgeInput{NChoices: n(0)}, "empty"},
		{"no output", classify.JudgeInput{}, "empty"},
		{"filter", classify.JudgeInput{NChoices: n(1), StopReason: "content_filter", Text: "GRADE: C"}, "refused"},
		{"refusal block", classify.JudgeInput{NChoices: n(1), StopReason: "stop", Refusal: true, Text: "no"}, "refused"},
		{"overflow", classify.JudgeInput{NChoices: n(1), StopReason: "model_length"}, "overflow"},
		{"empty at max_tokens", classify.JudgeInput{NChoices: n(1), StopReason: "max_tokens", Text: " \n"}, "empty"},
		{"cut", classify.JudgeInput{NChoices: n(1), StopReason: "max_tokens", Text: "The answer"}, "truncated"},
		{"usable", classify.JudgeInput{NChoices: n(1), StopReason: "stop", Text: "GRADE: I"}, "usable"},
	}
	for _, c := range cases {
		if got := classify.Judge(c.in); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
