// Package duck opens the embedded DuckDB and creates the views every query
// runs against. Paths reach SQL only through Quote, here; .sql files never
// hold a path.
package duck

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver

	"empties/internal/store"
	"empties/schema"
)

// No extension is downloaded at run time: everything needed (parquet, json,
// icu) is linked in, and a missing one should fail at once, not after a
// network timeout.
const dsnOptions = "?autoinstall_known_extensions=false&autoload_known_extensions=false"

// Open opens a DuckDB database file, or an in-memory one for path "".
func Open(path string) (*sql.DB, error) {
	db, err := sql.Open("duckdb", path+dsnOptions)
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening DuckDB %s: %w", path, err)
	}
	return db, nil
}

// Quote returns s as a SQL string literal.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Ident returns s as a quoted SQL identifier.
func Ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// CreateViews creates one view per table present in the dataset directory,
// reading its Parquet files: the declared tables (whose columns are checked
// against the schema) and any other table folder, such as the analysis
// outputs, whose contracts live beside their SQL. It returns the tables it
// found.
func CreateViews(ctx context.Context, db *sql.DB, dataDir string) ([]string, error) {
	return createViews(ctx, db, dataDir, true)
}

func createViews(ctx context.Context, db *sql.DB, dataDir string, strict bool) ([]string, error) {
	var found []string
	declared := map[string]bool{}
	for _, t := range schema.Tables() {
		declared[t.Name] = true
	}
	for _, t := range schema.Tables() {
		if !store.HasTable(dataDir, t.Name) {
			continue
		}
		q := fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM read_parquet(%s)",
			Ident(t.Name), Quote(store.TableGlob(dataDir, t.Name)))
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("creating view %s: %w", t.Name, err)
		}
		if err := checkColumns(ctx, db, t); err != nil && strict {
			return nil, fmt.Errorf("%s: %w", store.TableGlob(dataDir, t.Name), err)
		}
		found = append(found, t.Name)
	}
	entries, _ := os.ReadDir(dataDir)
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || declared[name] || strings.HasPrefix(name, ".") || !store.HasTable(dataDir, name) {
			continue
		}
		q := fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM read_parquet(%s)", Ident(name), Quote(store.TableGlob(dataDir, name)))
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("creating view %s: %w", name, err)
		}
		found = append(found, name)
	}
	return found, nil
}

// WriteViewsDB writes a DuckDB database file holding one view per table of
// the dataset at dataDir, so `duckdb <file>` works on its own. A table
// written by another version still gets its view; queries on it say why.
func WriteViewsDB(ctx context.Context, file, dataDir string) error {
	db, err := Open(file)
	if err != nil {
		return err
	}
	if _, err := createViews(ctx, db, dataDir, false); err != nil {
		db.Close()
		return err
	}
	return db.Close()
}

// checkColumns compares a view's columns with the declared schema, so data
// written by another version of empties fails with a clear message instead
// of a binder error deep in a query.
func checkColumns(ctx context.Context, db *sql.DB, t schema.Table) error {
	rows, err := db.QueryContext(ctx, "SELECT column_name FROM (DESCRIBE "+Ident(t.Name)+")")
	if err != nil {
		return err
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		got = append(got, name)
	}
	var want []string
	for _, c := range t.Columns() {
		want = append(want, c.Name)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		return fmt.Errorf("table %s was written by another version of empties (columns differ from `empties schema %s`); re-run the stage that writes it (ingest, or rescore for its tables)", t.Name, t.Name)
	}
	return rows.Err()
}

// OpenDataset opens an in-memory DuckDB with one view per table of the
// dataset at dataDir, and returns the tables found.
func OpenDataset(ctx context.Context, dataDir string) (*sql.DB, []string, error) {
	db, err := Open("")
	if err != nil {
		return nil, nil, err
	}
	tables, err := CreateViews(ctx, db, dataDir)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, tables, nil
}

// Rows runs a query and returns its columns and every row's values as
// scanned (nil for NULL).
func Rows(ctx context.Context, db *sql.DB, q string, args ...any) ([]string, [][]any, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		out = append(out, vals)
	}
	return cols, out, rows.Err()
}
