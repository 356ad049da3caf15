package duck

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"empties/internal/logset"
	"empties/internal/store"
	"empties/schema"
)

// The staging views are made here and nowhere else: one view per table
// declared in schema/, over one generation's Parquet files (ReadParquet),
// selecting every declared column cast to its declared type, so a query
// reads the types `empties schema` prints whatever wrote the files. The
// measures (analyze, check's contracts, select's prices), `empties sql`, the
// later stages and the view file DIR/empties.duckdb (which the notebook and
// the duckdb shell open) all read them.

// Views says which views CreateViews makes besides the staging view of each
// declared table the generation holds.
type Views struct {
	// Counted leaves the rows of superseded logs (ingest's log set) out of
	// every view keyed by log_id except logs itself, which keeps every file
	// with its set_status: the rows the measures count. Without it a view
	// holds every row, as `empties sql` and the view file show them.
	Counted bool
	// Empty gives a declared table the generation lacks an empty view with
	// its declared columns, so every measure binds and one without data
	// yields an empty table.
	Empty bool
	// Others adds a plain view of every other table folder of the
	// generation (the analysis outputs, typed by the DuckDB that wrote them
	// and checked against their contracts in sql/).
	Others bool
}

// ReaderViews are the views of a dataset's readers: every row of every
// table the generation holds.
var ReaderViews = Views{Others: true}

// StagingSelect is the query of a declared table's staging view over the
// generation (or folder of tables) root.
func StagingSelect(root string, t schema.Table, counted bool) string {
	var cols []string
	for _, c := range t.Columns() {
		cols = append(cols, fmt.Sprintf("CAST(%s AS %s) AS %s", Ident(c.Name), c.Type, Ident(c.Name)))
	}
	q := "SELECT " + strings.Join(cols, ", ") + " FROM " + ReadParquet(root, t.Name)
	if counted && t.Name != "logs" && hasColumn(t, "log_id") && store.HasTable(root, "logs") {
		q += " WHERE log_id NOT IN (SELECT log_id FROM " + ReadParquet(root, "logs") + " WHERE set_status = " + Quote(logset.Superseded) + ")"
	}
	return q
}

// EmptySelect is the query of the empty view of a declared table: its
// declared columns and no rows.
func EmptySelect(t schema.Table) string {
	var cols []string
	for _, c := range t.Columns() {
		cols = append(cols, fmt.Sprintf("CAST(NULL AS %s) AS %s", c.Type, Ident(c.Name)))
	}
	return "SELECT " + strings.Join(cols, ", ") + " WHERE false"
}

func hasColumn(t schema.Table, name string) bool {
	for _, c := range t.Columns() {
		if c.Name == name {
			return true
		}
	}
	return false
}

// CreateViews creates the views v names over the current generation of the
// dataset at dataDir (resolved once, so every view reads the same
// generation; a folder of tables that is no dataset is read as it is). It
// returns the tables the generation holds that got a view. A declared table
// whose files have other columns than schema/ declares is an error naming
// the table and the stage to re-run.
func CreateViews(ctx context.Context, db Querier, dataDir string, v Views) ([]string, error) {
	root, err := store.Current(dataDir)
	if err != nil {
		return nil, err
	}
	return createViews(ctx, db, root, v, true)
}

// Querier is what views are created on and read through: *sql.DB or
// *sql.Conn.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// createViews makes the views over root. With strict false (the view file),
// a declared table written by another version gets a plain view of what its
// files hold instead of failing the commit.
func createViews(ctx context.Context, db Querier, root string, v Views, strict bool) ([]string, error) {
	var found []string
	declared := map[string]bool{}
	for _, t := range schema.Tables() {
		declared[t.Name] = true
		var q string
		switch {
		case root != "" && store.HasTable(root, t.Name):
			q = StagingSelect(root, t, v.Counted)
			if err := checkColumns(ctx, db, root, t); err != nil {
				if strict {
					return nil, fmt.Errorf("%s: %w", filepath.Join(root, t.Name), err)
				}
				q = "SELECT * FROM " + ReadParquet(root, t.Name)
			}
			found = append(found, t.Name)
		case v.Empty:
			q = EmptySelect(t)
		default:
			continue
		}
		if _, err := db.ExecContext(ctx, "CREATE OR REPLACE VIEW "+Ident(t.Name)+" AS "+q); err != nil {
			return nil, fmt.Errorf("creating view %s: %w", t.Name, err)
		}
	}
	if !v.Others || root == "" {
		return found, nil
	}
	for _, name := range store.Tables(root) {
		if declared[name] {
			continue
		}
		if _, err := db.ExecContext(ctx, "CREATE OR REPLACE VIEW "+Ident(name)+" AS SELECT * FROM "+ReadParquet(root, name)); err != nil {
			return nil, fmt.Errorf("creating view %s: %w", name, err)
		}
		found = append(found, name)
	}
	return found, nil
}

// checkColumns compares the column names of a table's files with the
// declared schema, so data written by another version of empties fails with
// a clear message instead of a binder error deep in a query.
func checkColumns(ctx context.Context, db Querier, root string, t schema.Table) error {
	rows, err := db.QueryContext(ctx, "SELECT column_name FROM (DESCRIBE SELECT * FROM "+ReadParquet(root, t.Name)+")")
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
	if err := rows.Err(); err != nil {
		return err
	}
	var want []string
	for _, c := range t.Columns() {
		want = append(want, c.Name)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		return fmt.Errorf("table %s was written by another version of empties (columns differ from `empties schema %s`); re-run the stage that writes it (ingest, or rescore for its tables)", t.Name, t.Name)
	}
	return nil
}

// WriteViewsDB writes a DuckDB database file holding the reader views
// (ReaderViews) of the generation (or folder of tables) root, so
// `duckdb <file>` and the notebook read the same typed views as `empties
// sql`. A table written by another version still gets a plain view of its
// files.
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
	if _, err := createViews(ctx, db, root, ReaderViews, false); err != nil {
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

// OpenDataset opens an in-memory DuckDB with the reader views of the dataset
// at dataDir, and returns the tables found.
func OpenDataset(ctx context.Context, dataDir string) (*sql.DB, []string, error) {
	db, err := Open("")
	if err != nil {
		return nil, nil, err
	}
	tables, err := CreateViews(ctx, db, dataDir, ReaderViews)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, tables, nil
}
