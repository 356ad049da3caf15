package report

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"empties/internal/duck"
	"empties/internal/measures"
)

// The report lists a table's rows in an order that does not depend on where
// the logs lie: log_id hashes a log's absolute path, so the same logs in
// another checkout have other log_ids. Here log_id sorts the logs the other
// way from their paths; sorted by log_id first (ORDER BY ALL, as before)
// the rows come z, m, a and this fails.
func TestTableOrderIsTheSameWhereverTheLogsLie(t *testing.T) {
	ctx := context.Background()
	qs, err := measures.LoadQueries()
	if err != nil {
		t.Fatal(err)
	}
	db, err := duck.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		"CREATE TABLE by_log AS SELECT * FROM (VALUES ('0aa', 'REPO/logs/z.eval', 1), ('5bb', 'REPO/logs/m.eval', 1), ('fcc', 'REPO/logs/a.eval', 1)) t(log_id, path, n)",
		"CREATE TABLE ties AS SELECT * FROM (VALUES ('b', 2), ('a', 2), ('c', 1)) t(log_id, n)", // rows equal but for log_id
		"CREATE TABLE only_log AS SELECT * FROM (VALUES ('b'), ('a')) t(log_id)",
		"CREATE TABLE no_log AS SELECT * FROM (VALUES (2, 'x'), (1, 'y'), (1, NULL)) t(k, v)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		table string
		want  [][]any
	}{
		{"by_log", [][]any{{"fcc", "REPO/logs/a.eval", int32(1)}, {"5bb", "REPO/logs/m.eval", int32(1)}, {"0aa", "REPO/logs/z.eval", int32(1)}}},
		{"ties", [][]any{{"c", int32(1)}, {"a", int32(2)}, {"b", int32(2)}}},
		{"only_log", [][]any{{"a"}, {"b"}}},
		{"no_log", [][]any{{int32(1), "y"}, {int32(1), nil}, {int32(2), "x"}}}, // as ORDER BY ALL: nulls last
	} {
		rows, err := qs.Rows(ctx, db, "report_table", map[string]string{"table": duck.Ident(c.table)})
		if err != nil {
			t.Fatalf("%s: %v", c.table, err)
		}
		cols, got, err := scanRows(rows)
		if err != nil {
			t.Fatalf("%s: %v", c.table, err)
		}
		if len(cols) != len(c.want[0]) {
			t.Errorf("%s: columns %v, want the table's %d", c.table, cols, len(c.want[0]))
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: rows %s, want %s", c.table, fmt.Sprint(got), fmt.Sprint(c.want))
		}
	}
}
