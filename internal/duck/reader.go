package duck

import (
	"context"
	"database/sql"
	"io"
	"os"

	"empties/internal/guard"
)

// Reader is a dataset opened for a user's statements (`empties sql`, the
// SQL box of `empties serve`): the reader views of one generation in an
// in-memory DuckDB of its own, locked by LockReader with its Limits, DuckDB
// spilling to a private folder that Close removes. Every statement goes
// through the gate: Check, then Explain or Copy as its kind says, each under
// Limits.Context, its error through Limits.Explain.
type Reader struct {
	Tables []string // the tables found (none: nothing to read)
	Limits Limits
	db     *sql.DB
	conn   *sql.Conn
	tmp    *guard.Temp
}

// OpenReader opens the current generation of the dataset at dataDir for
// reading only, within lim.
func OpenReader(ctx context.Context, dataDir string, lim Limits) (*Reader, error) {
	db, tables, err := OpenDataset(ctx, dataDir)
	if err != nil {
		return nil, err
	}
	return newReader(ctx, db, tables, lim, dataDir)
}

// OpenGeneration opens the generation (or folder of tables) root as it is,
// for reading only, within lim: serve's SQL box over the generation the
// server pinned.
func OpenGeneration(ctx context.Context, root string, lim Limits) (*Reader, error) {
	db, err := Open("")
	if err != nil {
		return nil, err
	}
	tables, err := createViews(ctx, db, root, ReaderViews, true, nil)
	if err != nil {
		db.Close()
		return nil, err
	}
	return newReader(ctx, db, tables, lim, root)
}

func newReader(ctx context.Context, db *sql.DB, tables []string, lim Limits, dir string) (*Reader, error) {
	r := &Reader{Tables: tables, Limits: lim, db: db}
	if len(tables) == 0 {
		return r, nil // nothing to read; the caller says so
	}
	var err error
	if r.conn, err = db.Conn(ctx); err == nil {
		if r.tmp, err = guard.TempDir(os.TempDir(), "empties-sql."); err == nil {
			err = LockReader(ctx, r.conn, r.tmp.Path, lim, dir)
		}
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Conn is another connection to the reader's database, as locked (the
// settings are global): one per concurrent statement (serve's requests).
func (r *Reader) Conn(ctx context.Context) (*sql.Conn, error) { return r.db.Conn(ctx) }

// Close ends the connection and the database and removes the spill folder.
func (r *Reader) Close() error {
	if r.conn != nil {
		r.conn.Close()
	}
	err := r.db.Close()
	r.tmp.Close() // a nil Temp is fine
	return err
}

// Check is CheckRead on the locked connection: q, if the reader runs it.
func (r *Reader) Check(ctx context.Context, q string) (Statement, error) {
	return CheckRead(ctx, r.conn, q)
}

// Explain runs an EXPLAIN that Check accepted (ExplainRows).
func (r *Reader) Explain(ctx context.Context, q string) ([]string, [][]any, error) {
	return ExplainRows(ctx, r.conn, q)
}

// Copy streams the rows of a SELECT that Check accepted out of DuckDB's
// COPY with options to read, as DuckDB writes them (CopySelect).
func (r *Reader) Copy(ctx context.Context, q, options string, read func(io.Reader) error) error {
	return CopySelect(ctx, r.conn, q, options, read)
}
