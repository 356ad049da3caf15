package duck

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"empties/internal/guard"
)

// The ad-hoc readers (`empties sql`, and the SQL box of `empties serve`)
// run a user's statement over a dataset's views and must never change a
// file. This file is the one gate both go through, each rule checked
// against the embedded DuckDB by the attack tests of stages/sqlcmd and
// internal/serve:
//
//   - Only reads run. DuckDB's own parser, and nothing else, says what the
//     text is, before anything is bound or run: json_serialize_sql parses
//     without binding and serializes SELECT statements only (DESCRIBE,
//     SHOW, SUMMARIZE, FROM ..., VALUES, WITH, UNPIVOT and PIVOT ... IN
//     parse as SELECTs). A text that is one SELECT runs, through
//     query(), which itself runs one SELECT and nothing else; so does an
//     EXPLAIN of one. Anything else (COPY, EXPORT, ATTACH, CREATE, DROP,
//     ALTER, INSERT, UPDATE, DELETE, SET, PRAGMA, CALL, LOAD, INSTALL,
//     CHECKPOINT, VACUUM, PREPARE, transactions, several statements) is
//     refused unbound: binding is not free of effects (binding EXPORT
//     DATABASE makes its folder).
//   - Every table function the SELECT calls, at any depth of its parse
//     tree, is one that reads (readerFunctions): checkpoint(), dbgen(),
//     enable_logging(), register_external_resource() and query() (whose
//     text would escape the parse) are refused.
//   - Once parsed, the statement is prepared alone (the driver's Prepare;
//     PrepareContext would run all but the last of several) and DuckDB's
//     type of it must be SELECT (EXPLAIN for an EXPLAIN), with no
//     parameters.
//   - The configuration is locked (lock_configuration) once the views
//     exist, so a SELECT cannot change a setting either: the table
//     functions that would write files from within a SELECT
//     (enable_profiling's save_location, enable_logging's file storage)
//     fail, and temp_directory, which DuckDB spills to, stays a private
//     folder removed afterwards. Reads are confined to the dataset's
//     folder (allowed_directories, enable_external_access off) and the
//     private folder, where CopySelect's pipes are made. /dev/fd/ is not
//     allowed: a query could read any descriptor the process has open
//     (its log files, its database, another client's socket).
//   - No extension is installed or loaded (dsnOptions).
//
// A SELECT's rows reach the caller through DuckDB's COPY into a named pipe
// in the private folder (CopySelect), which DuckDB fills as it produces
// them: flat memory whatever the result's size.

// Statement is a statement the reader accepts.
type Statement struct {
	Kind StatementKind
}

// StatementKind says how an accepted statement runs.
type StatementKind int

const (
	// Select is a SELECT: its rows stream (CopySelect).
	Select StatementKind = iota
	// Explain is an EXPLAIN of a SELECT: a few rows, read whole
	// (ExplainRows).
	Explain
)

// Refused is the error of a statement the reader does not run: Reason
// says what it is and would do.
type Refused struct{ Reason string }

func (r *Refused) Error() string { return r.Reason }

func refused(format string, args ...any) error { return &Refused{Reason: fmt.Sprintf(format, args...)} }

// LockReader readies conn, a connection to a database holding a dataset's
// views, for a user's statements: times print in UTC, DuckDB spills to
// tmp (a private folder the caller removes), within lim's memory, spill
// and threads, files are read only below dirs (the dataset's folders) and
// tmp (where CopySelect makes its pipes), and then the configuration is
// locked. The settings are global: they hold for every connection of
// conn's database.
func LockReader(ctx context.Context, conn *sql.Conn, tmp string, lim Limits, dirs ...string) error {
	var allowed []string
	for _, d := range append(dirs, tmp) {
		abs, err := filepath.Abs(d)
		if err != nil {
			return err
		}
		abs = strings.TrimSuffix(abs, string(filepath.Separator)) + string(filepath.Separator)
		allowed = append(allowed, Quote(abs))
		// The views name a folder with '*', '?' or '[' as ReadPath escapes it.
		if esc := ReadPath(abs, ""); esc != Quote(abs) {
			allowed = append(allowed, esc)
		}
	}
	for _, q := range append(append([]string{
		"SET GLOBAL TimeZone = 'UTC'",
		"SET GLOBAL temp_directory = " + Quote(tmp)},
		lim.settings()...),
		"SET GLOBAL allowed_directories = ["+strings.Join(allowed, ", ")+"]",
		"SET GLOBAL enable_external_access = false",
		"SET GLOBAL lock_configuration = true",
	) {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("locking the reader (%s): %w", q, err)
		}
	}
	return nil
}

// explainPrefix is EXPLAIN, EXPLAIN ANALYZE or EXPLAIN (options: words and
// commas only), what follows being the statement explained.
var explainPrefix = regexp.MustCompile(`(?is)^\s*EXPLAIN\s+(?:ANALY[SZ]E\s+)?(?:\([\w\s,]*\)\s*)?`)

// CheckRead says whether q is one SELECT (or an EXPLAIN of one) calling
// only table functions that read, from DuckDB's parser, and then whether
// DuckDB's prepared statement agrees: nothing is run, and nothing is bound
// before the parse has found a SELECT. A statement of another kind is a
// *Refused naming it; a text DuckDB cannot parse is its syntax error.
func CheckRead(ctx context.Context, conn *sql.Conn, q string) (Statement, error) {
	trees, notSelect, err := parseSelects(ctx, conn, q)
	kind := Select
	switch {
	case err != nil:
		return Statement{}, err
	case notSelect:
		loc := explainPrefix.FindStringIndex(q)
		if loc == nil {
			return Statement{}, refused("%s", refusal(q))
		}
		// EXPLAIN ANALYZE runs what it explains: that must be a read too.
		inner := q[loc[1]:]
		trees, notSelect, err = parseSelects(ctx, conn, inner)
		switch {
		case err != nil:
			return Statement{}, fmt.Errorf("the statement explained: %w", err)
		case notSelect:
			return Statement{}, refused("EXPLAIN of a statement that is no SELECT: %s", refusal(inner))
		case len(trees) != 1:
			return Statement{}, refused("EXPLAIN of %d statements; give one SELECT", len(trees))
		}
		kind = Explain
	case len(trees) == 0:
		return Statement{}, refused("the text holds no statement")
	case len(trees) > 1:
		return Statement{}, refused("the text holds %d statements (a ';' ends one); give one", len(trees))
	}
	var tree any
	if err := json.Unmarshal(trees[0], &tree); err != nil {
		return Statement{}, fmt.Errorf("reading DuckDB's parse of the query: %w", err)
	}
	if f := unsafeFunction(tree); f != "" {
		return Statement{}, refused("the table function %s() is not one that only reads", f)
	}
	err = conn.Raw(func(dc any) error {
		s, err := prepare(dc, q)
		if err != nil {
			return err
		}
		defer s.Close()
		want := duckdb.STATEMENT_TYPE_SELECT
		if kind == Explain {
			want = duckdb.STATEMENT_TYPE_EXPLAIN
		}
		typ, err := s.StatementType()
		switch {
		case err != nil:
			return err
		case typ != want:
			return refused("DuckDB prepares it as %s, not a SELECT", statementName(typ))
		case s.NumInput() > 0:
			return refused("the query has parameters ($1, ?): write the values into it")
		}
		return nil
	})
	if err != nil {
		return Statement{}, err
	}
	return Statement{Kind: kind}, nil
}

// prepare prepares q alone on the driver connection of a (*sql.Conn).Raw:
// the driver's Prepare refuses several statements, where PrepareContext
// would run all but the last.
func prepare(dc any, q string) (*duckdb.Stmt, error) {
	c, ok := dc.(*duckdb.Conn)
	if !ok {
		return nil, fmt.Errorf("not a DuckDB connection: %T", dc)
	}
	st, err := c.Prepare(q)
	if err != nil {
		return nil, err
	}
	return st.(*duckdb.Stmt), nil
}

// parseSelects parses q with DuckDB's parser (json_serialize_sql, which
// binds nothing) and returns its statements' parse trees, or notSelect
// when one is not a SELECT; a syntax error is returned as an error.
func parseSelects(ctx context.Context, conn *sql.Conn, q string) (trees []json.RawMessage, notSelect bool, err error) {
	var text string
	if err := conn.QueryRowContext(ctx, `SELECT CAST(json_serialize_sql(CAST(? AS VARCHAR)) AS VARCHAR)`, q).Scan(&text); err != nil {
		return nil, false, err
	}
	var parsed struct {
		Error      bool              `json:"error"`
		ErrorType  string            `json:"error_type"`
		Message    string            `json:"error_message"`
		Statements []json.RawMessage `json:"statements"`
	}
	if err := json.Unmarshal([]byte(text), &parsed); err != nil {
		return nil, false, fmt.Errorf("reading DuckDB's parse of the query: %w", err)
	}
	switch {
	case parsed.Error && parsed.ErrorType == "not implemented": // "Only SELECT statements can be serialized"
		return nil, true, nil
	case parsed.Error:
		return nil, false, fmt.Errorf("%s error: %s", parsed.ErrorType, parsed.Message)
	}
	return parsed.Statements, false, nil
}

// readerFunctions are the table functions a query may call: readers of
// files (which LockReader confines to the dataset), of the catalog and of
// values.
var readerFunctions = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(`read_parquet parquet_scan read_csv read_csv_auto read_json read_json_auto read_ndjson
		read_ndjson_auto read_json_objects read_json_objects_auto read_ndjson_objects read_text read_blob sniff_csv
		parquet_metadata parquet_schema parquet_file_metadata parquet_kv_metadata parquet_full_metadata parquet_bloom_probe
		glob range generate_series unnest repeat repeat_row json_each json_tree query_table summary histogram
		histogram_values sql_tokenize icu_calendar_names pg_timezone_names which_secret test_all_types test_vector_types
		tpch_queries tpch_answers tpcds_queries tpcds_answers
		duckdb_columns duckdb_constraints duckdb_databases duckdb_dependencies duckdb_extensions duckdb_functions
		duckdb_indexes duckdb_keywords duckdb_memory duckdb_optimizers duckdb_schemas duckdb_sequences duckdb_settings
		duckdb_tables duckdb_temporary_files duckdb_types duckdb_variables duckdb_views duckdb_approx_database_count
		duckdb_connection_count duckdb_prepared_statements
		pragma_table_info pragma_show pragma_version pragma_platform pragma_database_size pragma_storage_info
		pragma_metadata_info pragma_collations pragma_user_agent`) {
		m[f] = true
	}
	return m
}()

// unsafeFunction returns the first table function of a parse tree that is
// not in readerFunctions ("" if none).
func unsafeFunction(node any) string {
	switch n := node.(type) {
	case map[string]any:
		if n["type"] == "TABLE_FUNCTION" {
			if fn, ok := n["function"].(map[string]any); ok {
				name, _ := fn["function_name"].(string)
				if !readerFunctions[strings.ToLower(name)] {
					return name
				}
			}
		}
		for _, v := range n {
			if f := unsafeFunction(v); f != "" {
				return f
			}
		}
	case []any:
		for _, v := range n {
			if f := unsafeFunction(v); f != "" {
				return f
			}
		}
	}
	return ""
}

// refusal names the statement q begins with, for the message (the verdict
// is the parser's), and what it would do.
func refusal(q string) string {
	word := strings.ToUpper(firstWord(q))
	switch word {
	case "COPY":
		return "COPY writes files (or tables)"
	case "EXPORT":
		return "EXPORT DATABASE writes files"
	case "IMPORT":
		return "IMPORT DATABASE creates tables"
	case "ATTACH", "DETACH", "USE":
		return word + " opens, closes or switches database files"
	case "CREATE":
		return "CREATE makes tables, views, macros, types or secrets"
	case "DROP":
		return "DROP removes tables or views"
	case "ALTER":
		return "ALTER changes tables or views"
	case "INSERT", "DELETE", "MERGE", "TRUNCATE":
		return word + " changes rows"
	case "UPDATE":
		return "UPDATE changes rows (UPDATE EXTENSIONS installs extensions)"
	case "SET", "RESET":
		return word + " changes settings (some open files)"
	case "PRAGMA":
		return "PRAGMA runs procedures or changes settings (for a table's columns: DESCRIBE t, or SELECT * FROM pragma_table_info('t'))"
	case "CALL":
		return "CALL runs a procedure (a table function reads as SELECT * FROM f(...))"
	case "INSTALL", "LOAD", "FORCE":
		return word + " installs or loads extensions (or checkpoints storage)"
	case "CHECKPOINT", "VACUUM", "ANALYZE":
		return word + " rewrites storage"
	case "BEGIN", "START", "COMMIT", "ROLLBACK", "ABORT", "END":
		return "a transaction has nothing to commit here"
	case "PREPARE", "EXECUTE", "DEALLOCATE":
		return word + " runs other statements"
	case "PIVOT":
		return "PIVOT without IN creates types first; list the values with IN (...)"
	case "EXPLAIN":
		return "an EXPLAIN must begin with EXPLAIN, EXPLAIN ANALYZE or EXPLAIN (options), then the SELECT it explains"
	}
	return "it is not a SELECT"
}

// firstWord is the first word of q after blanks and comments.
func firstWord(q string) string {
	for {
		q = strings.TrimLeft(q, " \t\r\n;")
		switch {
		case strings.HasPrefix(q, "--"):
			if i := strings.IndexByte(q, '\n'); i >= 0 {
				q = q[i:]
				continue
			}
			return ""
		case strings.HasPrefix(q, "/*"):
			if i := strings.Index(q, "*/"); i >= 0 {
				q = q[i+2:]
				continue
			}
			return ""
		}
		end := strings.IndexFunc(q, func(r rune) bool { return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
		if end < 0 {
			return q
		}
		return q[:end]
	}
}

// ExplainRows runs an EXPLAIN that CheckRead accepted, prepared as one
// statement (the driver's Prepare refuses several; PrepareContext would
// run all but the last), and returns its rows.
func ExplainRows(ctx context.Context, conn *sql.Conn, q string) (cols []string, rows [][]any, err error) {
	err = conn.Raw(func(dc any) error {
		st, err := prepare(dc, q)
		if err != nil {
			return err
		}
		defer st.Close()
		r, err := st.QueryContext(ctx, nil)
		if err != nil {
			return err
		}
		defer r.Close()
		cols = r.Columns()
		for {
			vals := make([]driver.Value, len(cols))
			if err := r.Next(vals); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			row := make([]any, len(vals))
			for i, v := range vals {
				row[i] = v
			}
			rows = append(rows, row)
		}
	})
	return cols, rows, err
}

// CopySelect runs the SELECT q (accepted by CheckRead) as DuckDB's COPY
// (FROM query(q)) TO a named pipe with the options given (e.g. "FORMAT
// csv"), and hands the pipe's reading end to read, which gets DuckDB's
// output as DuckDB writes it. query() runs one SELECT and nothing else,
// whatever q holds. When read returns early (its writer failed: a reader
// that went away, EPIPE), the pipe is closed, DuckDB's next write fails and
// the query ends; read's error is the one returned.
//
// The pipe is made in a temporary folder of its own (guard.TempDir, removed
// afterwards) inside the private folder LockReader set as DuckDB's
// temp_directory, the one place outside the dataset the reader may open.
func CopySelect(ctx context.Context, conn *sql.Conn, q, options string, read func(io.Reader) error) error {
	var tmp string
	if err := conn.QueryRowContext(ctx, "SELECT current_setting('temp_directory')").Scan(&tmp); err != nil {
		return err
	}
	dir, err := guard.TempDir(tmp, ".copy.")
	if err != nil {
		return fmt.Errorf("the pipe of the query's rows: %w", err)
	}
	defer dir.Close()
	path, err := filepath.Abs(filepath.Join(dir.Path, "rows"))
	if err != nil {
		return err
	}
	if err := guard.Fifo(path); err != nil {
		return fmt.Errorf("the pipe of the query's rows: %w", err)
	}
	// Both ends open at once without waiting for the other (O_NONBLOCK;
	// Go's poller waits on reads). keep is a writer held until the COPY
	// ends, so read sees the end of the rows then, not before DuckDB opens
	// the pipe (or when DuckDB fails before opening it).
	pr, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	keep, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		pr.Close()
		return err
	}
	done := make(chan error, 1)
	go func() {
		err := read(pr)
		pr.Close() // DuckDB's next write fails: the query ends
		done <- err
	}()
	copySQL := fmt.Sprintf("COPY (FROM query(%s)) TO %s (%s, USE_TMP_FILE false)", Quote(q), Quote(path), options)
	_, qerr := conn.ExecContext(ctx, copySQL)
	keep.Close() // read sees the end
	if rerr := <-done; rerr != nil {
		return rerr
	}
	if qerr != nil {
		// DuckDB quotes the text it ran, which is the COPY around q, not q.
		if msg := qerr.Error(); strings.Contains(msg, "LINE 1: COPY (FROM query(") {
			return &copyError{msg: strings.TrimSpace(msg[:strings.Index(msg, "LINE 1: COPY (FROM query(")]), err: qerr}
		}
	}
	return qerr
}

// copyError is a DuckDB error with the quote of the COPY around the
// user's query cut.
type copyError struct {
	msg string
	err error
}

func (e *copyError) Error() string { return e.msg }
func (e *copyError) Unwrap() error { return e.err }

// IsBrokenPipe reports whether err is a write to a reader that went away
// (`empties sql ... | head`).
func IsBrokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }

// statementName names a DuckDB statement type for a refusal.
func statementName(t duckdb.StmtType) string {
	names := map[duckdb.StmtType]string{
		duckdb.STATEMENT_TYPE_INSERT: "INSERT", duckdb.STATEMENT_TYPE_UPDATE: "UPDATE", duckdb.STATEMENT_TYPE_DELETE: "DELETE",
		duckdb.STATEMENT_TYPE_EXPLAIN: "EXPLAIN", duckdb.STATEMENT_TYPE_PREPARE: "PREPARE", duckdb.STATEMENT_TYPE_CREATE: "CREATE",
		duckdb.STATEMENT_TYPE_EXECUTE: "EXECUTE", duckdb.STATEMENT_TYPE_ALTER: "ALTER", duckdb.STATEMENT_TYPE_TRANSACTION: "a transaction statement",
		duckdb.STATEMENT_TYPE_COPY: "COPY", duckdb.STATEMENT_TYPE_ANALYZE: "ANALYZE", duckdb.STATEMENT_TYPE_VARIABLE_SET: "SET VARIABLE",
		duckdb.STATEMENT_TYPE_CREATE_FUNC: "CREATE FUNCTION", duckdb.STATEMENT_TYPE_DROP: "DROP", duckdb.STATEMENT_TYPE_EXPORT: "EXPORT",
		duckdb.STATEMENT_TYPE_PRAGMA: "PRAGMA", duckdb.STATEMENT_TYPE_VACUUM: "VACUUM", duckdb.STATEMENT_TYPE_CALL: "CALL",
		duckdb.STATEMENT_TYPE_SET: "SET", duckdb.STATEMENT_TYPE_LOAD: "LOAD", duckdb.STATEMENT_TYPE_ATTACH: "ATTACH",
		duckdb.STATEMENT_TYPE_DETACH: "DETACH", duckdb.STATEMENT_TYPE_MULTI: "a statement of several steps (PIVOT, ...)",
	}
	if n, ok := names[t]; ok {
		return n
	}
	return fmt.Sprintf("a statement of type %d", t)
}
