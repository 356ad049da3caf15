package vocab_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"empties/internal/duck"
	"empties/internal/store"
	"empties/internal/testutil"
	"empties/internal/vocab"
	"empties/schema"
)

// A dataset whose model_calls hold a call_status and a kind_reason outside
// their sets fails the check, with a line naming the table, the column and
// each value with its rows; the columns in their sets (and a NULL
// judge_class) pass.
func TestCheckNamesValuesOutsideTheirSet(t *testing.T) {
	dir := t.TempDir()
	ds, err := store.Create(testutil.Fixture, dir)
	if err != nil {
		t.Fatal(err)
	}
	call := func(i int64, status, reason string) schema.ModelCall {
		return schema.ModelCall{LogID: "l", SampleID: "1", Epoch: 1, CallIndex: i, Model: "m",
			Kind: vocab.KindMUT, KindReason: reason, CallStatus: status}
	}
	rows := []schema.ModelCall{
		call(0, vocab.CallCompleted, "eval_model"),
		call(1, "timed_out", "eval_model"),
		call(2, "timed_out", "eval_model"),
		call(3, vocab.CallRetried, "guessed"),
	}
	if err := store.WriteTable(ds, schema.ModelCalls, rows); err != nil {
		t.Fatal(err)
	}
	if err := ds.Commit(); err != nil {
		t.Fatal(err)
	}
	ds.Close()
	ctx := context.Background()
	db, tables, err := duck.OpenDataset(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out bytes.Buffer
	n, err := vocab.Check(ctx, db, tables, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`table model_calls, column call_status holds "timed_out" (2 rows)` + "\n",
		`table model_calls, column kind_reason holds "guessed" (1 row)` + "\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check output lacks %q:\n%s", want, out.String())
		}
	}
	if n != 2 || strings.Count(out.String(), "\n") != 2 {
		t.Errorf("%d columns broken, want 2 (call_status, kind_reason):\n%s", n, out.String())
	}
}
