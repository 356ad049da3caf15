package duck

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"empties/internal/guard"
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
func StagingSelect(root string, t schema.TableDef, counted bool) string {
	return stagingSelect(root, t, counted, ReadParquet(root, t.Name))
}

// stagingSelect is StagingSelect reading the table's rows from from.
func stagingSelect(root string, t schema.TableDef, counted bool, from string) string {
	var cols []string
	for _, c := range t.Columns() {
		cols = append(cols, fmt.Sprintf("CAST(%s AS %s) AS %s", Ident(c.Name), c.Type, Ident(c.Name)))
	}
	q := "SELECT " + strings.Join(cols, ", ") + " FROM " + from
	if counted && t.Name != "logs" && hasColumn(t, "log_id") && store.HasTable(root, "logs") {
		q += " WHERE log_id NOT IN (SELECT log_id FROM " + ReadParquet(root, "logs") + " WHERE set_status = " + Quote(logset.Superseded) + ")"
	}
	return q
}

// EmptySelect is the query of the empty view of a declared table: its
// declared columns and no rows.
func EmptySelect(t schema.TableDef) string {
	var cols []string
	for _, c := range t.Columns() {
		cols = append(cols, fmt.Sprintf("CAST(NULL AS %s) AS %s", c.Type, Ident(c.Name)))
	}
	return "SELECT " + strings.Join(cols, ", ") + " WHERE false"
}

func hasColumn(t schema.TableDef, name string) bool {
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
	store.RepairOnce(root, RepairViews) // every reader repairs a copied or moved dataset's view file
	return createViews(ctx, db, root, v, true, nil)
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
//
// A non-nil guard is the view file's check that it is read where it was
// written (fileGuard): every view reads its files through it.
func createViews(ctx context.Context, db Querier, root string, v Views, strict bool, g *fileGuard) ([]string, error) {
	guarded := func(table, q string) string {
		if g == nil {
			return q
		}
		return "SELECT * FROM (" + q + ") WHERE " + g.check(root, table)
	}
	from := func(table, empty string) string {
		if g == nil {
			return ReadParquet(root, table)
		}
		return g.read(root, table, empty)
	}
	var found []string
	declared := map[string]bool{}
	for _, t := range schema.Tables() {
		declared[t.Name] = true
		var q string
		switch {
		case root != "" && store.HasTable(root, t.Name):
			q = stagingSelect(root, t, v.Counted, from(t.Name, EmptySelect(t)))
			if err := checkColumns(ctx, db, root, t); err != nil {
				switch {
				case strict && t.Owner == schema.StageIngest:
					return nil, fmt.Errorf("%s: %w", filepath.Join(root, t.Name), err)
				case strict:
					// A later stage's table written by another version is
					// as good as not computed: readers see no such table
					// (the report says its stage has not run), and the
					// stage that writes it runs and replaces it.
					continue
				}
				q = "SELECT * FROM " + from(t.Name, "")
			}
			found = append(found, t.Name)
		case v.Empty:
			q = EmptySelect(t)
		default:
			continue
		}
		if _, err := db.ExecContext(ctx, "CREATE OR REPLACE VIEW "+Ident(t.Name)+" AS "+guarded(t.Name, q)); err != nil {
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
		if _, err := db.ExecContext(ctx, "CREATE OR REPLACE VIEW "+Ident(name)+" AS "+guarded(name, "SELECT * FROM "+from(name, ""))); err != nil {
			return nil, fmt.Errorf("creating view %s: %w", name, err)
		}
		found = append(found, name)
	}
	return found, nil
}

// checkColumns compares the column names of a table's files with the
// declared schema, so data written by another version of empties fails with
// a clear message instead of a binder error deep in a query.
func checkColumns(ctx context.Context, db Querier, root string, t schema.TableDef) error {
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
//
// The views name root's files by absolute path (DuckDB resolves a relative
// path against the reader's working folder, not the database file's, and
// has no setting a database file keeps), so a copy or a move of the dataset
// would read the original's files, or those of a dataset made in its place.
// Every view is therefore filtered by fileGuard: it reads only when a
// database attached to the reader is this file at root (DuckDB reports an
// attached file's path with its symlinks resolved); read from elsewhere it
// fails with an error saying what happened and what repairs it. Any empties
// command that reads the dataset repairs it (RepairViews, through
// store.RepairOnce in CreateViews, and store.Create with ViewFile) by
// writing the file anew for where it lies.
func WriteViewsDB(ctx context.Context, file, root string) error {
	// DuckDB derives a database's WAL path by cutting it at '?', so the file
	// is written under a plain temporary name and copied into place.
	tmp, err := guard.TempDir(os.TempDir(), "empties-views.")
	if err != nil {
		return err
	}
	defer tmp.Close()
	db, err := Open(filepath.Join(tmp.Path, "views.duckdb"))
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1) // USE is per connection
	abs, err := filepath.Abs(root)
	if err != nil {
		db.Close()
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		db.Close()
		return err
	}
	if _, err := createViews(ctx, db, root, ReaderViews, false, &fileGuard{abs: abs, real: real, name: filepath.Base(file)}); err != nil {
		db.Close()
		return err
	}
	if _, err := db.ExecContext(ctx, "CREATE OR REPLACE MACRO "+viewsRootMacro+"() AS "+Quote(real)); err != nil {
		db.Close()
		return err
	}
	if err := db.Close(); err != nil {
		return err
	}
	return store.CopyFile(filepath.Join(tmp.Path, "views.duckdb"), file)
}

// viewsRootMacro names, in a view file, the folder its views were written
// for (resolved), so RepairViews can tell a moved file.
const viewsRootMacro = "empties_views_root"

// fileGuard is the view file's check that it is read where it was written:
// a database attached to the reader is the view file at root (spelled abs
// or resolved real, name).
//
// The check must come before DuckDB looks for the files: read_parquet
// globs its pattern when the view is bound, long before any WHERE runs, so
// a copy whose original is gone would fail with DuckDB's "No files found
// that match the pattern <the original's path>" instead of saying what
// happened. So the view file's views read with allow_empty (a pattern
// matching nothing binds, as the typed empty select of a declared table
// unioned by name), and the check, a condition of the view, fails with the
// message; read where it was written, it also fails when the pattern
// matches no file (the generation was removed under a reader that holds no
// pin), which allow_empty alone would read as an empty table.
type fileGuard struct{ abs, real, name string }

// read is the FROM of a table's files (empty: the typed empty select of a
// declared table, or "").
func (g *fileGuard) read(root, table, empty string) string {
	files := "read_parquet(" + ReadPath(filepath.Join(root, table), "*.parquet") + ", allow_empty = true)"
	if empty == "" {
		return files
	}
	return "(" + empty + " UNION ALL BY NAME SELECT * FROM " + files + ")"
}

// check is the condition every row of a view file's view passes: true, or
// an error saying why nothing can be read.
func (g *fileGuard) check(root, table string) string {
	paths := Quote(filepath.Join(g.real, g.name))
	if g.abs != g.real {
		paths += ", " + Quote(filepath.Join(g.abs, g.name))
	}
	moved := fmt.Sprintf("empties: this view file was written for the dataset at %s and is read from elsewhere (the dataset was copied or moved), so its views would read that dataset's files; nothing was read. Run any empties command on this copy (e.g. empties sql \"SELECT 1\" --data DIR) to rewrite its view file, or read its Parquet tables (DIR/current/<table>)",
		filepath.Dir(filepath.Dir(g.real)))
	gone := fmt.Sprintf("empties: the files of table %s of generation %s are gone (a later ingest or stage replaced the generation while this view file was open); open DIR/empties.duckdb again: it names the current generation",
		table, g.real)
	return "(SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM duckdb_databases() WHERE path IN (" + paths + ")) THEN error(" + Quote(moved) + ")" +
		" WHEN NOT EXISTS (SELECT 1 FROM glob(" + ReadPath(filepath.Join(root, table), "*.parquet") + ")) THEN error(" + Quote(gone) + ")" +
		" ELSE true END)"
}

// RepairViews rewrites the view file of generation gen if it was written
// for another folder (the dataset was copied or moved) or before view files
// knew theirs, so its views read gen's own files. The new file replaces the
// old in one rename; a reader that has the old one open keeps it.
func RepairViews(ctx context.Context, gen string) error {
	file := filepath.Join(gen, store.ViewsFile)
	if _, err := os.Lstat(file); err != nil {
		return nil // no view file (a generation written without duck)
	}
	real, err := filepath.EvalSymlinks(gen)
	if err != nil {
		return err
	}
	if written, err := viewsRoot(ctx, file); err == nil && written == real {
		return nil
	}
	tmp, err := guard.TempDir(gen, "."+store.ViewsFile+".")
	if err != nil {
		return err
	}
	defer tmp.Close()
	if err := WriteViewsDB(ctx, filepath.Join(tmp.Path, store.ViewsFile), gen); err != nil {
		return err
	}
	return guard.ReplaceFile(real, store.ViewsFile, filepath.Join(tmp.Path, store.ViewsFile))
}

// viewsRoot reads the folder a view file was written for.
func viewsRoot(ctx context.Context, file string) (string, error) {
	db, err := Open("")
	if err != nil {
		return "", err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, "ATTACH "+Quote(file)+" AS views_file (READ_ONLY); USE views_file"); err != nil {
		return "", err
	}
	var root string
	err = db.QueryRowContext(ctx, "SELECT "+viewsRootMacro+"()").Scan(&root)
	return root, err
}

// ViewFile is what a stage passes to store.Create (store.Stage.Views) so
// that every generation it commits gets its view file, and a view file
// written for another place is rewritten when it opens the dataset.
var ViewFile = store.ViewFile{Write: WriteViews, Repair: RepairViews}

// WriteViews writes the view file of generation gen (store.ViewsFile in it).
func WriteViews(ctx context.Context, gen string) error {
	return WriteViewsDB(ctx, filepath.Join(gen, store.ViewsFile), gen)
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
