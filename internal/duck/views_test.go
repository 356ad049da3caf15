package duck_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"empties/internal/duck"
	"empties/internal/store"
	"empties/schema"
)

// writeTables writes a dataset at dir, one generation: each table's rows are
// the query given, over a table of its declared columns created here and
// filled by the inserts.
func writeTables(t *testing.T, dir string, tables map[string][2]string) {
	t.Helper()
	ctx := context.Background()
	db, err := duck.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ds, err := store.Create(store.Stage{Name: store.FixtureWriter, Views: duck.ViewFile}, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	for name, q := range tables {
		var cols []string
		if tb, ok := schema.Lookup(name); ok {
			for _, c := range tb.Columns() {
				cols = append(cols, duck.Ident(c.Name)+" "+c.Type)
			}
		} else {
			cols = []string{"n BIGINT"}
		}
		if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE TABLE %s (%s); %s", duck.Ident(name), strings.Join(cols, ", "), q[0])); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		td, err := ds.TableDir(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", q[1], duck.Quote(filepath.Join(td, "part-00000.parquet")))); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if err := ds.Commit(); err != nil {
		t.Fatal(err)
	}
}

func one(t *testing.T, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, q string) string {
	t.Helper()
	var s string
	if err := db.QueryRowContext(context.Background(), q).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

// The staging views read the declared types whatever the files hold (epoch
// written as INTEGER reads as BIGINT), and the same views are in the view
// file DIR/empties.duckdb; Counted leaves a superseded log's replies out (the
// measures' reading) while readers see every row; Empty gives a table the
// dataset lacks its declared columns; Others adds the undeclared folders.
func TestStagingViews(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeTables(t, dir, map[string][2]string{
		"logs": {`INSERT INTO logs (log_id, path, set_status) VALUES ('A', '/a.eval', 'counted'), ('B', '/b.eval', 'superseded')`,
			"SELECT * FROM logs"},
		"replies": {`INSERT INTO replies (log_id, sample_id, epoch, class) VALUES ('A', '1', 1, 'answer'), ('B', '1', 1, 'silent')`,
			"SELECT * REPLACE (CAST(epoch AS INTEGER) AS epoch) FROM replies"},
		"class_rates": {"INSERT INTO class_rates VALUES (7)", "SELECT * FROM class_rates"},
	})
	declared := func(table string) string {
		tb, _ := schema.Lookup(table)
		var cols []string
		for _, c := range tb.Columns() {
			cols = append(cols, c.Name+" "+c.Type)
		}
		return strings.Join(cols, ", ")
	}
	describe := func(table string) string {
		return "SELECT string_agg(column_name || ' ' || column_type, ', ') FROM (DESCRIBE " + table + ")"
	}

	readers, tables, err := duck.OpenDataset(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer readers.Close()
	if got := strings.Join(tables, ","); got != "logs,replies,class_rates" {
		t.Errorf("reader views: %s", got)
	}
	if got := one(t, readers, describe("replies")); got != declared("replies") {
		t.Errorf("replies view:\n  %s\ndeclared\n  %s", got, declared("replies"))
	}
	if got := one(t, readers, "SELECT string_agg(log_id, ',' ORDER BY log_id) FROM replies"); got != "A,B" {
		t.Errorf("readers see replies of %s, want every log's", got)
	}
	if got := one(t, readers, "SELECT n::VARCHAR FROM class_rates"); got != "7" {
		t.Errorf("class_rates: %s", got)
	}

	file, err := duck.Open(filepath.Join(dir, store.ViewsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	file.SetMaxOpenConns(1)
	if got := one(t, file, describe("replies")); got != declared("replies") {
		t.Errorf("replies in the view file:\n  %s\ndeclared\n  %s", got, declared("replies"))
	}
	if got := one(t, file, "SELECT string_agg(log_id, ',' ORDER BY log_id) FROM replies"); got != "A,B" {
		t.Errorf("the view file's replies are of %s", got)
	}

	measures, err := duck.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer measures.Close()
	measures.SetMaxOpenConns(1)
	if _, err := duck.CreateViews(ctx, measures, dir, duck.Views{Counted: true, Empty: true}); err != nil {
		t.Fatal(err)
	}
	if got := one(t, measures, "SELECT string_agg(log_id, ',' ORDER BY log_id) FROM replies"); got != "A" {
		t.Errorf("counted replies are of %s, want A's only", got)
	}
	if got := one(t, measures, "SELECT string_agg(log_id, ',' ORDER BY log_id) FROM logs"); got != "A,B" {
		t.Errorf("counted logs: %s, want every file", got)
	}
	if got := one(t, measures, describe("policy_scores")); got != declared("policy_scores") {
		t.Errorf("empty policy_scores: %s", got)
	}
	if got := one(t, measures, "SELECT count(*)::VARCHAR FROM policy_scores"); got != "0" {
		t.Errorf("empty policy_scores holds %s rows", got)
	}
	if _, err := measures.ExecContext(ctx, "SELECT * FROM class_rates"); err == nil {
		t.Error("class_rates has a view without Others")
	}
}

// A declared table whose files have other columns is an error naming the
// table for a reader, and still a plain view in the view file.
func TestStagingViewsRefuseOtherColumns(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeTables(t, dir, map[string][2]string{
		"replies": {`INSERT INTO replies (log_id, sample_id, epoch) VALUES ('A', '1', 1)`,
			"SELECT * EXCLUDE (class) FROM replies"},
	})
	_, _, err := duck.OpenDataset(ctx, dir)
	if err == nil || !strings.Contains(err.Error(), "table replies was written by another version of empties") {
		t.Errorf("got %v, want the table named with the stage to re-run", err)
	}
	file, err := duck.Open(filepath.Join(dir, store.ViewsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if got := one(t, file, "SELECT log_id FROM replies"); got != "A" {
		t.Errorf("view file: %s", got)
	}
	// A later stage's table of another version (decisions before it had a
	// finding) is as if not computed: readers open the dataset without it,
	// and its stage runs and writes it anew.
	later := t.TempDir()
	writeTables(t, later, map[string][2]string{
		"replies":   {`INSERT INTO replies (log_id, sample_id, epoch) VALUES ('A', '1', 1)`, "SELECT * FROM replies"},
		"decisions": {`INSERT INTO decisions (rule) VALUES ('D1b')`, "SELECT * EXCLUDE (finding) FROM decisions"},
	})
	db, present, err := duck.OpenDataset(ctx, later)
	if err != nil {
		t.Fatalf("a stale decisions table: %v", err)
	}
	defer db.Close()
	if slices.Contains(present, "decisions") || !slices.Contains(present, "replies") {
		t.Errorf("tables %v: want replies without the stale decisions", present)
	}
}
