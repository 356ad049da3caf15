package serve

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// The SQL box runs what a reader types, so what it runs is checked by DuckDB
// itself, never by reading the text: the query is prepared as exactly one
// statement (the driver's Prepare, which refuses several; its PrepareContext
// would run all but the last one), and DuckDB's statement type of the
// prepared statement must be SELECT (DESCRIBE, SHOW, SUMMARIZE, PRAGMA
// table_info, VALUES and FROM-first queries are SELECTs to DuckDB). COPY,
// ATTACH, CREATE, INSERT, SET, CALL, LOAD, EXPORT, PIVOT (a CREATE TYPE
// first) and EXPLAIN (EXPLAIN ANALYZE runs its statement) are refused. The
// database is locked besides (lockDown): no file outside the generation,
// no configuration change.
//
// prepareReadOnly is the one place this is decided, so that the shared check
// of `empties sql` (issue 21) can take its place.

// errWrite is the refusal of a statement that is not a single SELECT.
var errWrite = errors.New("the SQL box only reads")

// prepareReadOnly prepares q on c if it is a single statement that only
// reads; the caller runs and closes the statement it returns.
func prepareReadOnly(c *duckdb.Conn, q string) (*duckdb.Stmt, error) {
	if strings.TrimSpace(q) == "" {
		return nil, fmt.Errorf("no query")
	}
	st, err := c.Prepare(q)
	if err != nil {
		if strings.Contains(err.Error(), "multi-statement") {
			return nil, fmt.Errorf("%w: one statement at a time (the text holds several)", errWrite)
		}
		return nil, err
	}
	s := st.(*duckdb.Stmt)
	typ, err := s.StatementType()
	switch {
	case err != nil:
	case typ != duckdb.STATEMENT_TYPE_SELECT:
		err = fmt.Errorf("%w: %s is not a query (only SELECT, and what DuckDB reads as one: DESCRIBE, SHOW, SUMMARIZE, VALUES, FROM ...)", errWrite, statementName(typ))
	case s.NumInput() > 0:
		err = fmt.Errorf("the query has parameters ($1, ?): write the values into it")
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// checkReadOnly is prepareReadOnly's verdict on q, on the driver connection
// of a (*sql.Conn).Raw.
func checkReadOnly(dc any, q string) error {
	c, ok := dc.(*duckdb.Conn)
	if !ok {
		return fmt.Errorf("not a DuckDB connection")
	}
	s, err := prepareReadOnly(c, q)
	if err != nil {
		return err
	}
	return s.Close()
}

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
	return fmt.Sprintf("statement type %d", t)
}

// queryRows runs q on conn if prepareReadOnly takes it, handing its rows
// to fn, which returns false to stop. The statement run is the one checked.
func queryRows(ctx context.Context, conn *sql.Conn, q string, fn func(cols []string, row []driver.Value) bool) ([]string, error) {
	var cols []string
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(*duckdb.Conn)
		if !ok {
			return fmt.Errorf("not a DuckDB connection")
		}
		s, err := prepareReadOnly(c, q)
		if err != nil {
			return err
		}
		defer s.Close()
		rows, err := s.QueryContext(ctx, nil)
		if err != nil {
			return err
		}
		defer rows.Close()
		cols = rows.Columns()
		vals := make([]driver.Value, len(cols))
		for {
			if err := rows.Next(vals); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			if !fn(cols, vals) {
				return nil
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	})
	return cols, err
}
