package duck

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// The ad-hoc reader (`empties sql`) runs a user's statement over a
// dataset's views and must never change a file. Three things make it so,
// each checked against the embedded DuckDB by stages/sqlcmd's tests:
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
//   - The configuration is locked (lock_configuration) once the views
//     exist, so a SELECT cannot change a setting either: the table
//     functions that would write files from within a SELECT
//     (enable_profiling's save_location, enable_logging's file storage)
//     fail, and temp_directory, which DuckDB spills to, stays a private
//     folder removed afterwards.
//   - No extension is installed or loaded (dsnOptions).
//
// A SELECT's rows reach the caller through DuckDB's COPY into a pipe
// (CopySelect), which DuckDB fills as it produces them: flat memory
// whatever the result's size.

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
// tmp (a private folder the caller removes), and then the configuration
// is locked.
func LockReader(ctx context.Context, conn *sql.Conn, tmp string) error {
	for _, q := range []string{
		"SET GLOBAL TimeZone = 'UTC'",
		"SET GLOBAL temp_directory = " + Quote(tmp),
		"SET GLOBAL lock_configuration = true",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// explainPrefix is EXPLAIN, EXPLAIN ANALYZE or EXPLAIN (options: words and
// commas only), what follows being the statement explained.
var explainPrefix = regexp.MustCompile(`(?is)^\s*EXPLAIN\s+(?:ANALY[SZ]E\s+)?(?:\([\w\s,]*\)\s*)?`)

// CheckRead says whether q is one SELECT (or an EXPLAIN of one), from
// DuckDB's parser alone: nothing is bound or run. A statement of another
// kind is a *Refused naming it; a text DuckDB cannot parse is its syntax
// error.
func CheckRead(ctx context.Context, conn *sql.Conn, q string) (Statement, error) {
	n, notSelect, err := parseSelects(ctx, conn, q)
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
		n, notSelect, err := parseSelects(ctx, conn, inner)
		switch {
		case err != nil:
			return Statement{}, fmt.Errorf("the statement explained: %w", err)
		case notSelect:
			return Statement{}, refused("EXPLAIN of a statement that is no SELECT: %s", refusal(inner))
		case n != 1:
			return Statement{}, refused("EXPLAIN of %d statements; give one SELECT", n)
		}
		return Statement{Kind: Explain}, nil
	case n == 0:
		return Statement{}, refused("the text holds no statement")
	case n > 1:
		return Statement{}, refused("the text holds %d statements (a ';' ends one); give one", n)
	}
	return Statement{Kind: Select}, nil
}

// parseSelects parses q with DuckDB's parser (json_serialize_sql, which
// binds nothing) and returns how many statements it holds, or notSelect
// when one is not a SELECT; a syntax error is returned as an error.
func parseSelects(ctx context.Context, conn *sql.Conn, q string) (n int, notSelect bool, err error) {
	var errType, errMsg sql.NullString
	var count sql.NullInt64
	err = conn.QueryRowContext(ctx, `SELECT j->>'error_type', j->>'error_message', json_array_length(j->'statements')
	  FROM (SELECT json_serialize_sql(?::VARCHAR)::JSON AS j)`, q).Scan(&errType, &errMsg, &count)
	switch {
	case err != nil:
		return 0, false, err
	case errType.String == "not implemented": // "Only SELECT statements can be serialized"
		return 0, true, nil
	case errType.Valid:
		return 0, false, fmt.Errorf("%s error: %s", errType.String, errMsg.String)
	}
	return int(count.Int64), false, nil
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
		c, ok := dc.(*duckdb.Conn)
		if !ok {
			return fmt.Errorf("not a DuckDB connection: %T", dc)
		}
		st, err := c.Prepare(q)
		if err != nil {
			return err
		}
		defer st.Close()
		r, err := st.(driver.StmtQueryContext).QueryContext(ctx, nil)
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
// (FROM query(q)) TO a pipe with the options given (e.g. "FORMAT csv"),
// and hands the pipe's reading end to read, which gets DuckDB's output as
// DuckDB writes it. query() runs one SELECT and nothing else, whatever q
// holds. When read returns early (its writer failed: a reader that went
// away, EPIPE), the pipe is closed, DuckDB's next write fails and the
// query ends; read's error is the one returned.
func CopySelect(ctx context.Context, conn *sql.Conn, q, options string, read func(io.Reader) error) error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		err := read(pr)
		pr.Close() // DuckDB's next write fails: the query ends
		done <- err
	}()
	copySQL := fmt.Sprintf("COPY (FROM query(%s)) TO %s (%s, USE_TMP_FILE false)", Quote(q), Quote(fmt.Sprintf("/dev/fd/%d", pw.Fd())), options)
	_, qerr := conn.ExecContext(ctx, copySQL)
	pw.Close() // read sees the end
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
