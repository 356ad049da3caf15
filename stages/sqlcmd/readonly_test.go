package sqlcmd_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/cliutil"
	"empties/internal/ingest"
	"empties/internal/ingest/ingesttest"
	"empties/internal/store"
	"empties/internal/testutil"
	"empties/stages/sqlcmd"
)

// testDataset ingests one fixture log into a new dataset inside a fresh
// folder and returns the folder, the dataset and its current generation.
func testDataset(t testing.TB) (root, ds, gen string) {
	t.Helper()
	root = t.TempDir()
	ds = filepath.Join(root, "ds")
	ingesttest.Build(t, ingest.Config{Paths: []string{testutil.Path(t, "testdata", "logs", "grader-role.eval")}, Out: ds})
	gen, err := store.Current(ds)
	if err != nil || gen == "" {
		t.Fatalf("current: %q %v", gen, err)
	}
	return root, ds, gen
}

// No statement `empties sql` is given changes a file: every attack on the
// dataset (and on the folder around it) is refused, or is a read that
// changes nothing, and the dataset's files are byte for byte what they
// were. Each attack runs in its own Run, as from the command line.
func TestSQLNeverWrites(t *testing.T) {
	root, ds, gen := testDataset(t)
	part := store.TableFiles(ds, "replies")[0]
	views := filepath.Join(gen, store.ViewsFile)
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	in := func(name string) string { return q(filepath.Join(gen, "replies", name)) }
	outside := q(filepath.Join(root, "outside.csv"))
	refused := []string{
		// files
		"COPY (SELECT * FROM replies LIMIT 1) TO " + q(part) + " (FORMAT parquet)",
		"COPY (SELECT * FROM replies) TO " + in("extra.parquet") + " (FORMAT parquet)",
		"COPY replies TO " + outside,
		"COPY (SELECT 1) TO " + outside + " (FORMAT csv)",
		"EXPORT DATABASE " + q(filepath.Join(gen, "export")),
		"EXPLAIN ANALYZE COPY (SELECT 1) TO " + outside,
		"EXPLAIN (ANALYZE) COPY (SELECT 1) TO " + outside,
		"/* x */ EXPLAIN ANALYZE COPY (SELECT 1) TO " + outside,
		"EXPLAIN (FORMAT json); COPY (SELECT 1) TO " + outside + "; (SELECT 1)",
		"EXPLAIN SELECT 1; COPY (SELECT 1) TO " + outside,
		"EXPLAIN ANALYZE SELECT 1; SELECT 2",
		// databases
		"ATTACH " + q(views) + " AS v",
		"ATTACH " + q(views) + " AS v; DROP VIEW v.replies",
		"ATTACH " + q(filepath.Join(gen, "new.duckdb")) + " AS n",
		"DETACH memory",
		"USE memory",
		"COPY FROM DATABASE memory TO memory",
		// several statements: nothing runs, not even the first
		"SELECT 1; COPY (SELECT 1) TO " + outside,
		"COPY (SELECT 1) TO " + outside + "; SELECT 1",
		"SELECT 1;;SELECT 2",
		// catalog and rows
		"CREATE TABLE t AS SELECT 1",
		"CREATE VIEW w AS SELECT 1",
		"CREATE OR REPLACE VIEW replies AS SELECT 1",
		"CREATE MACRO m() AS 1",
		"CREATE SECRET s (TYPE s3, KEY_ID 'k', SECRET 's')",
		"CREATE PERSISTENT SECRET s (TYPE s3, KEY_ID 'k', SECRET 's')",
		"DROP VIEW replies",
		"ALTER VIEW replies RENAME TO r2",
		"INSERT INTO replies SELECT * FROM replies",
		"UPDATE replies SET class = 'x'",
		"DELETE FROM replies",
		"PIVOT replies ON class USING count(*)",
		// settings (some reopen or write files)
		"SET temp_directory = " + q(filepath.Join(gen, "tmp")),
		"SET lock_configuration = false",
		"SET enable_external_access = false",
		"SET profiling_output = " + q(filepath.Join(gen, "prof.json")),
		"SET log_query_path = " + q(filepath.Join(gen, "queries.log")),
		"RESET threads",
		"SET VARIABLE v = 1",
		"PRAGMA enable_profiling",
		"PRAGMA profile_output = " + q(filepath.Join(gen, "prof.txt")),
		"PRAGMA threads = 1",
		"PRAGMA table_info('replies')", // a read, but PRAGMA is no SELECT to the parser
		"PRAGMA import_database(" + q(gen) + ")",
		// procedures, extensions, storage
		"CALL enable_logging(storage = 'file', storage_path = " + q(filepath.Join(gen, "log")) + ")",
		"CHECKPOINT",
		"FORCE CHECKPOINT",
		"VACUUM",
		"ANALYZE",
		"INSTALL json",
		"LOAD json",
		"UPDATE EXTENSIONS",
		"BEGIN TRANSACTION",
		"PREPARE p AS SELECT 1",
		// a SELECT that would write: the settings are locked
		"SELECT * FROM enable_profiling(save_location = " + q(filepath.Join(gen, "prof.txt")) + ")",
		"SELECT * FROM enable_logging(storage = 'file', storage_path = " + q(filepath.Join(gen, "log")) + ")",
		"SELECT * FROM query('COPY (SELECT 1) TO " + strings.ReplaceAll(outside, "'", "''") + "')",
		// table functions that are no readers (the SQL box's rule, one gate)
		"SELECT * FROM checkpoint()",
		"SELECT * FROM register_external_resource('duckdb', 'x', MAP{}, uri := " + q(filepath.Join(gen, "x.duckdb")) + ", attached_db_type := 'duckdb')",
		"SELECT * FROM dbgen(sf = 0.01)",
		"SELECT * FROM query('SELECT 42')",
		// a read outside the dataset
		"SELECT * FROM read_text('/etc/passwd')",
		"SELECT * FROM read_text(" + outside + ")",
	}
	// Reads, which run and change nothing either.
	reads := []string{
		"SELECT count(*) FROM replies",
		"SELECT size FROM read_blob(" + q(views) + ")",
		"SELECT count(*) FROM read_parquet(" + q(part) + ")",
		"SELECT * FROM glob(" + q(filepath.Join(gen, "*")) + ")",
		"SELECT * FROM read_text(" + q(filepath.Join(gen, "generation.json")) + ")",
		"DESCRIBE replies",
		"SUMMARIZE replies",
		"SHOW ALL TABLES",
		"EXPLAIN SELECT * FROM replies",
		"EXPLAIN ANALYZE SELECT * FROM replies",
		"WITH x AS (SELECT 1 AS a) SELECT * FROM x",
		"FROM replies LIMIT 1",
		"VALUES (1), (2)",
	}
	before := testutil.Snapshot(t, root)
	ctx := context.Background()
	for _, s := range refused {
		var out bytes.Buffer
		err := sqlcmd.Run(ctx, sqlcmd.Options{Query: s, Data: ds, Format: "csv"}, &out)
		var usage *cliutil.UsageError
		if err == nil {
			t.Errorf("%s: ran (output %q), want a refusal", s, out.String())
		} else if strings.HasPrefix(err.Error(), "sql: refused") && !errors.As(err, &usage) {
			t.Errorf("%s: a refusal that is no usage error: %v", s, err)
		}
		testutil.SameTree(t, s, before, testutil.Snapshot(t, root))
	}
	for _, s := range reads {
		var out bytes.Buffer
		if err := sqlcmd.Run(ctx, sqlcmd.Options{Query: s, Data: ds, Format: "csv"}, &out); err != nil {
			t.Errorf("%s: %v", s, err)
		}
		testutil.SameTree(t, s, before, testutil.Snapshot(t, root))
	}
	var out bytes.Buffer
	if err := sqlcmd.Run(ctx, sqlcmd.Options{Query: "SELECT count(*) AS n FROM replies", Data: ds, Format: "csv"}, &out); err != nil || out.String() != "n\n3\n" {
		t.Errorf("after the attacks: %q %v", out.String(), err)
	}
}

// The refusal says what was refused and what to do instead.
func TestSQLRefusalMessages(t *testing.T) {
	_, ds, _ := testDataset(t)
	for q, want := range map[string]string{
		"COPY (SELECT 1) TO 'x.csv'":          "sql: refused, nothing ran: COPY writes files",
		"SELECT 1; SELECT 2":                  "holds 2 statements",
		"DROP VIEW replies":                   "DROP removes tables or views",
		"SET threads = 1":                     "changes settings",
		"EXPLAIN ANALYZE DELETE FROM replies": "EXPLAIN of a statement that is no SELECT",
	} {
		err := sqlcmd.Run(context.Background(), sqlcmd.Options{Query: q, Data: ds, Format: "table"}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--output FILE") {
			t.Errorf("%s: %v, want it to say %q and how to save a result", q, err, want)
		}
	}
}
