package reclassify_test

import (
	"context"
	"io"
	"slices"
	"testing"

	"empties/internal/duck"
	"empties/internal/ingest/ingesttest"
	"empties/internal/measures"
	"empties/internal/reclassify"
	"empties/internal/store"
	"empties/internal/testutil"
	"empties/internal/vocab"
	"empties/schema"
)

// A dataset classified by older rules: one reply carries another class and
// rule, another reply another final class, a turn of an agent another class
// and a call that is no generation a class, a call ingest did not find a
// judge's carries a judge class, and the analysis tables were computed from
// the old classes. Reclassify puts the replies and the calls back as ingest
// wrote them, from the stored fields, and removes the tables computed from
// the old classes.
func TestReclassifyRestoresTheClassesAndDropsWhatTheyFed(t *testing.T) {
	ctx := context.Background()
	data := ingesttest.Dataset(t, testutil.Path(t, "testdata", "classify"), testutil.Path(t, "testdata", "logs", "grader-role.eval"),
		testutil.Path(t, "testdata", "turns"))
	if err := measures.Run(ctx, measures.Config{Data: data}, io.Discard); err != nil {
		t.Fatal(err)
	}
	const replies = `SELECT log_id, sample_id, epoch, class, class_rule, non_answer, final_call_index, final_class, final_class_rule, final_non_answer,
	  generations, non_answer_generations FROM replies ORDER BY ALL`
	const calls = "SELECT log_id, sample_id, epoch, call_index, kind, judge_class, class, class_rule, non_answer FROM model_calls ORDER BY ALL"
	wantReplies, wantCalls := testutil.Query(t, data, replies), testutil.Query(t, data, calls)
	if !slices.ContainsFunc(wantCalls, func(r []string) bool { return r[4] == vocab.KindJudge }) {
		t.Fatal("the fixtures have no judge call to classify")
	}

	ds, err := store.Create(store.Stage{Name: schema.StageClassify, Views: duck.ViewFile}, data)
	if err != nil {
		t.Fatal(err)
	}
	tampered, tamperedFinal := false, false
	if err := store.RewriteTable(ds, schema.Replies, func(r *schema.Reply) error {
		switch {
		case !tampered && r.Class != "answer":
			r.Class, r.ClassRule, r.NonAnswer, tampered = "answer", "answer@v0", false, true
		case !tamperedFinal && r.Generations > 1:
			r.FinalClass, r.FinalClassRule, r.FinalNonAnswer, r.Generations, tamperedFinal = "silent", "silent@v0", true, 1, true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	old, silent, rule, yes := "usable", "silent", "silent@v0", true
	turn, stray := false, false
	if err := store.RewriteTable(ds, schema.ModelCalls, func(c *schema.ModelCall) error {
		if c.Kind != vocab.KindJudge {
			c.JudgeClass = &old
		}
		switch {
		case !turn && c.Class != nil && c.CallIndex > 0:
			c.Class, c.ClassRule, c.NonAnswer, turn = &silent, &rule, &yes, true
		case !stray && c.Class == nil:
			c.Class, c.ClassRule, c.NonAnswer, stray = &silent, &rule, &yes, true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := ds.Commit(); err != nil {
		t.Fatal(err)
	}
	ds.Close()
	if !tampered || !tamperedFinal || !turn || !stray || !store.HasTable(data, "class_rates") {
		t.Fatalf("setup: tampered %v %v %v %v, class_rates %v", tampered, tamperedFinal, turn, stray, store.HasTable(data, "class_rates"))
	}

	res, err := reclassify.Dataset(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed != 2 || res.Turns != 2 {
		t.Errorf("%d replies and %d calls changed rule, want the two of each tampered with", res.Changed, res.Turns)
	}
	if !slices.Contains(res.Dropped, "class_rates") || store.HasTable(data, "class_rates") {
		t.Errorf("dropped %v: want class_rates, computed from the old classes, gone", res.Dropped)
	}
	for _, kept := range []string{"logs", "replies", "model_calls", "scores"} {
		if slices.Contains(res.Dropped, kept) || !store.HasTable(data, kept) {
			t.Errorf("%s, an ingest table, was dropped", kept)
		}
	}
	var n int64
	for _, c := range res.Counts {
		n += c
	}
	if int(n) != len(wantReplies) {
		t.Errorf("counts add up to %d replies, the dataset has %d", n, len(wantReplies))
	}
	same := func(what string, got, want [][]string) {
		t.Helper()
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s after reclassify differ from what ingest wrote (%d rows, want %d)", what, len(got), len(want))
		}
	}
	same("replies", testutil.Query(t, data, replies), wantReplies)
	same("model calls", testutil.Query(t, data, calls), wantCalls)
}
