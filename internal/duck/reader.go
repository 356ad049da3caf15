package duck

import (
	"context"
	"database/sql"
	"io"
	"os"

	"empties/internal/guard"
)

// Reader is a dataset opened for a user's statements (`empties sql`): the
// reader views of its current generation in an in-memory DuckDB, and one
// connection locked by LockReader, DuckDB spilling to a private folder
// that Close removes. Every statement goes through the gate: Check, then
// Explain or Copy as its kind says.
type Reader struct {
	Tables []string // the tables found (none: nothing to read)
	db     *sql.DB
	conn   *sql.Conn
	tmp    *guard.Temp
}

// OpenReader opens the dataset at dataDir for reading only.
func OpenReader(ctx context.Context, dataDir string) (*Reader, error) {
	db, tables, err := OpenDataset(ctx, dataDir)
	if err != nil {
		return nil, err
	}
	r := &Reader{Tables: tables, db: db}
	if len(tables) == 0 {
		return r, nil // nothing to read; the caller says so
	}
	if r.conn, err = db.Conn(ctx); err == nil {
		if r.tmp, err = guard.TempDir(os.TempDir(), "empties-sql."); err == nil {
			err = LockReader(ctx, r.conn, r.tmp.Path, dataDir)
		}
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

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
