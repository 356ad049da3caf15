package store_test

import (
	"fmt"
	"strings"
	"testing"

	"empties/internal/store"
	"empties/internal/testutil"
	"empties/schema"
)

// An absent optional text is NULL in every row a table writer writes,
// whatever rows came before it. parquet-go v0.32 writes the zero value of a
// non-pointer optional field as NULL or as "" depending on the rows around
// it: absent, present, absent, absent read back NULL, value, "", "" (an
// ingest that recorded a whole file's error, a member's, then whole files'
// again wrote member "" for the last ones). Each pattern is written through
// the writer the stages use (store.WriteTable) into the tables whose
// columns are optional text, and read back by DuckDB.
func TestAbsentOptionalTextIsNull(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, pattern := range []string{".v..", ".v.", "v.v.", "..v.", "v..."} {
		dir := t.TempDir()
		ds, err := store.Create(testutil.Fixture, dir)
		if err != nil {
			t.Fatal(err)
		}
		var (
			errs     []schema.IngestError
			logs     []schema.Log
			replies  []schema.Reply
			assigned []schema.LogAssignment
		)
		for i, c := range pattern {
			id := fmt.Sprint(i)
			e, l, r, a := schema.IngestError{Path: id, Error: "whole file"}, schema.Log{LogID: id}, schema.Reply{LogID: id}, schema.LogAssignment{LogID: id}
			if c == 'v' {
				e.Member = s("samples/1_epoch_1.json")
				l.EvalID, l.RunID, l.EvalSetID, l.TaskID, l.InspectAI, l.DatasetName = s("e"), s("r"), s("s"), s("t"), s("0.3.285"), s("d")
				r.EvalID, r.SampleUUID = s("e"), s("u")
				a.Eval = s("xstest")
			}
			errs, logs, replies, assigned = append(errs, e), append(logs, l), append(replies, r), append(assigned, a)
		}
		for _, err := range []error{
			store.WriteTable(ds, schema.IngestErrors, errs),
			store.WriteTable(ds, schema.Logs, logs),
			store.WriteTable(ds, schema.Replies, replies),
			store.WriteTable(ds, schema.LogAssignments, assigned),
			ds.Commit(),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
		ds.Close()
		for _, c := range []struct{ table, key, cols string }{
			{"ingest_errors", "path", "member"},
			{"logs", "log_id", "eval_id, run_id, eval_set_id, task_id, inspect_ai_version, dataset_name"},
			{"replies", "log_id", "eval_id, sample_uuid"},
			{"log_assignments", "log_id", "eval"},
		} {
			for _, col := range strings.Split(c.cols, ", ") {
				q := fmt.Sprintf("SELECT string_agg(CASE WHEN %s IS NULL THEN '.' WHEN %s = '' THEN '\"\"' ELSE 'v' END, '' ORDER BY %s) FROM %s", col, col, c.key, c.table)
				if got := testutil.Query(t, dir, q)[0][0]; got != pattern {
					t.Errorf("%s.%s written as %s (v a value, . absent) read back as %s (. NULL)", c.table, col, pattern, got)
				}
			}
		}
	}
}
