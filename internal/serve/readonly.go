package serve

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// The SQL box runs what a reader types, so what it runs is decided by
// DuckDB's own parser, never by reading the text, and before anything is
// bound (binding can act: EXPORT DATABASE makes its folder when it is
// prepared):
//
//  1. json_serialize_sql parses the text without binding it and serializes
//     SELECT statements only: it must give exactly one statement (DESCRIBE,
//     SHOW, SUMMARIZE, VALUES and FROM-first queries are SELECTs to it;
//     COPY, ATTACH, CREATE, INSERT, SET, PRAGMA, CALL, LOAD, EXPORT, PIVOT
//     and EXPLAIN are not);
//  2. every table function the statement calls, at any depth, must be one
//     that reads (tableFunctions): checkpoint(), dbgen(), enable_logging()
//     and query() (whose text would escape step 1) are refused;
//  3. the statement is prepared as one statement (the driver's Prepare;
//     its PrepareContext would run all but the last of several) and its
//     type must be SELECT; that prepared statement is the one run.
//
// Beneath all three the database is locked (lockDown): no file outside the
// generation, no configuration change.
//
// prepareReadOnly is the one place this is decided, so that the shared check
// of `empties sql` (issue 21) can take its place.

// errWrite is the refusal of a statement that is not a single query.
var errWrite = errors.New("the SQL box only reads")

// tableFunctions are the table functions a query may call: readers of
// files (which lockDown confines to the generation), of the catalog and of
// values.
var tableFunctions = map[string]bool{}

func init() {
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
		tableFunctions[f] = true
	}
}

// prepareReadOnly prepares q on c if it is a single statement that only
// reads; the caller runs and closes the statement it returns.
func prepareReadOnly(c *duckdb.Conn, q string) (*duckdb.Stmt, error) {
	if strings.TrimSpace(q) == "" {
		return nil, fmt.Errorf("no query")
	}
	if err := parseReadOnly(c, q); err != nil {
		return nil, err
	}
	st, err := c.Prepare(q)
	if err != nil {
		return nil, err
	}
	s := st.(*duckdb.Stmt)
	typ, err := s.StatementType()
	switch {
	case err != nil:
	case typ != duckdb.STATEMENT_TYPE_SELECT:
		err = fmt.Errorf("%w: %s is not a query", errWrite, statementName(typ))
	case s.NumInput() > 0:
		err = fmt.Errorf("the query has parameters ($1, ?): write the values into it")
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// parseReadOnly is steps 1 and 2: DuckDB's parse of q, unbound.
func parseReadOnly(c *duckdb.Conn, q string) error {
	rows, err := c.QueryContext(context.Background(), "SELECT CAST(json_serialize_sql(CAST($1 AS VARCHAR)) AS VARCHAR)",
		[]driver.NamedValue{{Ordinal: 1, Value: q}})
	if err != nil {
		return err
	}
	vals := make([]driver.Value, 1)
	err = rows.Next(vals)
	rows.Close()
	if err != nil {
		return err
	}
	text, _ := vals[0].(string)
	var parsed struct {
		Error      bool              `json:"error"`
		ErrorType  string            `json:"error_type"`
		Message    string            `json:"error_message"`
		Statements []json.RawMessage `json:"statements"`
	}
	if err := json.Unmarshal([]byte(text), &parsed); err != nil {
		return fmt.Errorf("reading DuckDB's parse of the query: %w", err)
	}
	switch {
	case parsed.Error && parsed.ErrorType == "not implemented":
		return fmt.Errorf("%w: %s is not a query (a single SELECT runs, or what DuckDB reads as one: DESCRIBE, SHOW, SUMMARIZE, VALUES, FROM ...)", errWrite, firstWord(q))
	case parsed.Error:
		return fmt.Errorf("%s", parsed.Message)
	case len(parsed.Statements) != 1:
		return fmt.Errorf("%w: one statement at a time (the text holds %d)", errWrite, len(parsed.Statements))
	}
	var tree any
	if err := json.Unmarshal(parsed.Statements[0], &tree); err != nil {
		return fmt.Errorf("reading DuckDB's parse of the query: %w", err)
	}
	if f := unsafeFunction(tree); f != "" {
		return fmt.Errorf("%w: the table function %s() is not one that only reads", errWrite, f)
	}
	return nil
}

// unsafeFunction returns the first table function of a parse tree that is
// not in tableFunctions ("" if none).
func unsafeFunction(node any) string {
	switch n := node.(type) {
	case map[string]any:
		if n["type"] == "TABLE_FUNCTION" {
			if fn, ok := n["function"].(map[string]any); ok {
				name, _ := fn["function_name"].(string)
				if !tableFunctions[strings.ToLower(name)] {
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

// firstWord is the statement's first word, for a refusal's message only.
func firstWord(q string) string {
	for _, line := range strings.Split(q, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "--") {
			continue
		}
		if f := strings.Fields(line); len(f) > 0 {
			return strings.ToUpper(strings.Trim(f[0], "(;"))
		}
	}
	return "the statement"
}

// checkReadOnly is prepareReadOnly's verdict on q, on the driver connection
// of a (*sql.Conn).Raw.
func checkReadOnly(dc any, q string) error {
	s, err := prepareOn(dc, q)
	if err != nil {
		return err
	}
	return s.Close()
}

// prepareOn is prepareReadOnly on the driver connection of a Raw.
func prepareOn(dc any, q string) (*duckdb.Stmt, error) {
	c, ok := dc.(*duckdb.Conn)
	if !ok {
		return nil, fmt.Errorf("not a DuckDB connection")
	}
	return prepareReadOnly(c, q)
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
		s, err := prepareOn(dc, q)
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
