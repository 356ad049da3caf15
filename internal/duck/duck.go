// Package duck opens the embedded DuckDB and creates the views every query
// runs against. Paths reach SQL only through Quote and ReadPath, here; .sql
// files never hold a path.
package duck

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"empties/internal/store"
	"empties/schema"
)

// No extension is downloaded at run time: everything needed (parquet, json,
// icu) is linked in, and a missing one should fail at once, not after a
// network timeout.
const dsnOptions = "?autoinstall_known_extensions=false&autoload_known_extensions=false"

// Open opens a DuckDB database file, or an in-memory one for path "". A
// file is attached by SQL from an in-memory database, never named in the
// DSN: the driver cuts a DSN at its first '?' and URL-decodes it, so a path
// holding '?', '%' or '#' would open another file, or none.
func Open(path string) (*sql.DB, error) {
	var init func(driver.ExecerContext) error
	if path != "" {
		attach := "ATTACH IF NOT EXISTS " + Quote(path) + " AS empties_file; USE empties_file"
		init = func(ex driver.ExecerContext) error {
			_, err := ex.ExecContext(context.Background(), attach, nil)
			return err
		}
	}
	c, err := duckdb.NewConnector(dsnOptions, init)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening DuckDB %s: %w", path, err)
	}
	return db, nil
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

// CreateViews creates one view per table of the current generation of the
// dataset at dataDir (resolved once, so every view reads the same
// generation): the declared tables (whose columns are checked against the
// schema) and any other table folder, such as the analysis outputs, whose
// contracts live beside their SQL. It returns the tables it found.
func CreateViews(ctx context.Context, db *sql.DB, dataDir string) ([]string, error) {
	root, err := store.Current(dataDir)
	if err != nil {
		return nil, err
	}
	return createViews(ctx, db, root, true)
}

func createViews(ctx context.Context, db *sql.DB, root string, strict bool) ([]string, error) {
	var found []string
	if root == "" {
		return nil, nil
	}
	declared := map[string]bool{}
	for _, t := range schema.Tables() {
		declared[t.Name] = true
	}
	for _, t := range schema.Tables() {
		if !store.HasTable(root, t.Name) {
			continue
		}
		q := fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM %s", Ident(t.Name), ReadParquet(root, t.Name))
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("creating view %s: %w", t.Name, err)
		}
		if err := checkColumns(ctx, db, t); err != nil && strict {
			return nil, fmt.Errorf("%s: %w", filepath.Join(root, t.Name), err)
		}
		found = append(found, t.Name)
	}
	for _, name := range store.Tables(root) {
		if declared[name] {
			continue
		}
		q := fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM %s", Ident(name), ReadParquet(root, name))
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("creating view %s: %w", name, err)
		}
		found = append(found, name)
	}
	return found, nil
}

// WriteViewsDB writes a DuckDB database file holding one view per table of
// the generation (or folder of tables) root, so `duckdb <file>` works on its
// own. A table written by another version still gets its view; queries on
// it say why.
func WriteViewsDB(ctx context.Context, file, root string) error {
	// DuckDB derives a database's WAL path by cutting it at '?', so the file
	// is written under a plain temporary name and copied into place.
	tmp, err := os.MkdirTemp("", "empties-views-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	db, err := Open(filepath.Join(tmp, "views.duckdb"))
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1) // USE is per connection
	if _, err := createViews(ctx, db, root, false); err != nil {
		db.Close()
		return err
	}
	if err := db.Close(); err != nil {
		return err
	}
	return store.CopyFile(filepath.Join(tmp, "views.duckdb"), file)
}

// Every generation a stage commits gets its view file.
func init() {
	store.WriteViews = func(ctx context.Context, gen string) error {
		return WriteViewsDB(ctx, filepath.Join(gen, store.ViewsFile), gen)
	}
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
