package check_test

import (
	"context"
	"strings"
	"testing"

	"empties/internal/check"
	"empties/internal/duck"
	"empties/internal/ingest/ingesttest"
	"empties/internal/store"
	"empties/internal/testutil"
	"empties/schema"
)

// Every declared key is one row's: a dataset whose tables hold each key
// once passes; a planted second reply of a sample × epoch breaks replies'
// key, named with its columns and the key of most rows; two errors of one
// member break ingest_errors'; model_calls, whose calls differ only in
// call_index, is not named.
func TestDeclaredKeysAreUnique(t *testing.T) {
	reply := func(sample string, epoch int64) schema.Reply {
		return schema.Reply{LogID: "l1", Task: "t", Model: "m", SampleID: sample, SampleIDType: "str", Epoch: epoch,
			Member: "samples/" + sample, ReplySource: "none", MaxTokensSource: "unset", Class: "silent", FinalClass: "silent"}
	}
	call := func(i int64) schema.ModelCall {
		return schema.ModelCall{LogID: "l1", SampleID: "a", Epoch: 1, CallIndex: i, Model: "m",
			Kind: "model_under_test", KindReason: "eval_model", CallStatus: "completed"}
	}
	write := func(t *testing.T, replies []schema.Reply, errs []schema.IngestError) string {
		dir := t.TempDir()
		ds, err := store.Create(testutil.Fixture, dir)
		if err != nil {
			t.Fatal(err)
		}
		defer ds.Close()
		if err := store.WriteTable(ds, schema.Replies, replies); err != nil {
			t.Fatal(err)
		}
		if err := store.WriteTable(ds, schema.ModelCalls, []schema.ModelCall{call(0), call(1), call(2)}); err != nil {
			t.Fatal(err)
		}
		if err := store.WriteTable(ds, schema.IngestErrors, errs); err != nil {
			t.Fatal(err)
		}
		if err := ds.Commit(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	ctx := context.Background()
	member := "samples/1_epoch_1.json"
	one := []schema.IngestError{{Path: "/logs/x.eval", Error: "not a zip"}, {Path: "/logs/y.eval", Member: &member, Error: "bad"}}

	broken, err := check.Invariants(ctx, write(t, []schema.Reply{reply("a", 1), reply("a", 2), reply("b", 1)}, one))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Errorf("unique keys: broken %s", b.Invariant)
	}

	replies := []schema.Reply{reply("a", 1), reply("b", 1), reply("b", 1), reply("a", 1), reply("b", 1), reply("c", 1)}
	errs := append(one, schema.IngestError{Path: "/logs/y.eval", Member: &member, Error: "again"})
	broken, err = check.Invariants(ctx, write(t, replies, errs))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range broken {
		got = append(got, b.Invariant)
	}
	want := []string{
		`every replies row has its own key (log_id, sample_id, epoch); table replies, key (log_id, sample_id, epoch): 2 keys repeat, e.g. ("l1", "b", "1") in 3 rows`,
		`every ingest_errors row has its own key (path, member); table ingest_errors, key (path, member): 1 key repeats, e.g. ("/logs/y.eval", "samples/1_epoch_1.json") in 2 rows`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("broken:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if broken[0].Rows != 2 || !strings.Contains(broken[0].Query, `FROM "replies" GROUP BY ALL HAVING count(*) > 1`) {
		t.Errorf("replies: %d rows, query %s", broken[0].Rows, broken[0].Query)
	}
}

// The final reply is the last generation: a dataset ingest wrote from the
// agents' logs keeps it; a reply whose final call or turn count says
// otherwise breaks it, named.
func TestFinalReplyIsTheLastGeneration(t *testing.T) {
	ctx := context.Background()
	data := ingesttest.Dataset(t, testutil.Path(t, "testdata", "turns"))
	const inv = "every reply's final reply is its last generation"
	broken := func() bool {
		t.Helper()
		bs, err := check.Invariants(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			if strings.HasPrefix(b.Invariant, inv) {
				return true
			}
		}
		return false
	}
	if broken() {
		t.Fatal("the agents' dataset as ingest wrote it breaks the final reply's invariant")
	}
	ds, err := store.Create(store.Stage{Name: schema.StageClassify, Views: duck.ViewFile}, data)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	done := false
	if err := store.RewriteTable(ds, schema.Replies, func(r *schema.Reply) error {
		if !done && r.Generations > 1 {
			first := int64(0)
			r.FinalCallIndex, done = &first, true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := ds.Commit(); err != nil {
		t.Fatal(err)
	}
	if !done || !broken() {
		t.Error("a reply whose final call is its first of several generations does not break the invariant")
	}
}
