// Package duck opens the embedded DuckDB and creates the views every query
// runs against (views.go: the typed staging views of schema/'s tables). Paths reach SQL only through Quote and ReadPath, here; .sql
// files never hold a path.
package duck

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"empties/internal/guard"
)

// No extension is downloaded at run time: everything needed (parquet, json,
// icu) is linked in, and a missing one should fail at once, not after a
// network timeout.
const dsnOptions = "?autoinstall_known_extensions=false&autoload_known_extensions=false"

// Open opens a DuckDB database file, or an in-memory one for path "". A
// file is attached by SQL from an in-memory database, never named in the
// DSN: the driver cuts a DSN at its first '?' and URL-decodes it, so a path
// holding '?', '%' or '#' would open another file, or none.
//
// DuckDB writes what a query cannot hold in memory to its temp_directory,
// by default .tmp in the working directory for an in-memory database: a
// folder of the user's, shared by every run started there, whose spill files
// two databases would overwrite. Each database Open makes spills instead into
// a private temporary folder of its own (guard.TempDir in the system's
// temporary folder), removed when the database is closed.
func Open(path string) (*sql.DB, error) {
	var init func(driver.ExecerContext) error
	if path != "" {
		attach := "ATTACH IF NOT EXISTS " + Quote(path) + " AS empties_file; USE empties_file"
		init = func(ex driver.ExecerContext) error {
			_, err := ex.ExecContext(context.Background(), attach, nil)
			return err
		}
	}
	spill, err := guard.TempDir(os.TempDir(), "empties-duckdb.")
	if err != nil {
		return nil, fmt.Errorf("opening DuckDB %s: a folder for its temporary files: %w", path, err)
	}
	c, err := duckdb.NewConnector(dsnOptions+"&temp_directory="+url.QueryEscape(spill.Path), init)
	if err != nil {
		spill.Close()
		return nil, err
	}
	db := sql.OpenDB(&connector{Connector: c, spill: spill})
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening DuckDB %s: %w", path, err)
	}
	return db, nil
}

// connector is a DuckDB database with its private spill folder; database/sql
// closes it with the *sql.DB, and the folder goes with it.
type connector struct {
	*duckdb.Connector
	spill *guard.Temp
}

func (c *connector) Close() error {
	err := c.Connector.Close()
	if e := c.spill.Close(); err == nil {
		err = e
	}
	return err
}

// Quote returns s as a SQL string literal. A path that DuckDB reads
// (read_parquet) goes through ReadPath instead, which also escapes glob
// characters.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// ReadPath returns a file path, or a pattern whose folder part is a path,
// as a SQL string literal for DuckDB's file readers, which expand '*', '?'
// and '[...]' in every part of a path: each is written as a one-character
// class ([*], [?], [[]) so a dataset at runs/run* reads its own files and
// never those of runs/run1. pattern is appended unescaped ("" for none).
func ReadPath(path, pattern string) string {
	var b strings.Builder
	for _, r := range path {
		switch r {
		case '*', '?', '[':
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
		default:
			b.WriteRune(r)
		}
	}
	if pattern != "" {
		b.WriteString(string(filepath.Separator) + pattern)
	}
	return Quote(b.String())
}

// ReadParquet is the SQL that reads a table's Parquet files in a generation
// (or table) folder: read_parquet over root/table/*.parquet. Every view of
// a dataset's tables is made from it.
func ReadParquet(root, table string) string {
	return "read_parquet(" + ReadPath(filepath.Join(root, table), "*.parquet") + ")"
}

// Ident returns s as a quoted SQL identifier.
func Ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Rows runs a query and returns its columns and every row's values as
// scanned (nil for NULL). A JSON column comes back as its text: duckdb-go
// would decode it with encoding/json, which fails on the NaN literals
// Python writes and turns objects into unordered maps, so a result with a
// JSON column is read again with those columns cast to VARCHAR.
func Rows(ctx context.Context, db Querier, q string, args ...any) ([]string, [][]any, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, nil, err
	}
	var casts []string
	for i, t := range types {
		if t.DatabaseTypeName() == "JSON" {
			casts = append(casts, fmt.Sprintf("CAST(%s AS VARCHAR) AS %s", Ident(cols[i]), Ident(cols[i])))
		}
	}
	if len(casts) > 0 {
		rows.Close()
		rows, err = db.QueryContext(ctx, "SELECT * REPLACE ("+strings.Join(casts, ", ")+") FROM ("+q+"\n) AS empties_json", args...)
		if err != nil {
			return nil, nil, err
		}
		defer rows.Close()
	}
	out, err := ScanRows(rows)
	if err != nil {
		return nil, nil, err
	}
	return cols, out, nil
}

// ScanRows reads every row left in rows, each as its values (the driver's
// types); it does not close rows.
func ScanRows(rows *sql.Rows) ([][]any, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}

// Append adds rows to the table of conn's database through DuckDB's
// appender: fill calls add once per row, with the row's values in the
// table's column order. The rows are in the table when Append returns nil.
func Append(conn *sql.Conn, table string, fill func(add func(values ...driver.Value) error) error) error {
	return conn.Raw(func(dc any) error {
		app, err := duckdb.NewAppenderFromConn(dc.(driver.Conn), "", table)
		if err != nil {
			return err
		}
		if err := fill(app.AppendRow); err != nil {
			app.Close()
			return err
		}
		return app.Close()
	})
}
