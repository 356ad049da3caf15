package serve

import (
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/signal"
	"syscall"

	"empties/internal/duck"
	"empties/internal/sqlfmt"
)

// The SQL box runs what a reader types through the one gate `empties sql`
// goes through (internal/duck/readonly.go): DuckDB's parser must find one
// SELECT, or an EXPLAIN of one, calling only table functions that read;
// DuckDB's prepared statement must agree; the database, a DuckDB of the SQL
// box's own (generation.sqlReader), is locked (duck.LockReader: reads
// confined to the generation, its memory, spill and threads bounded,
// configuration locked) before any reader's statement; each statement runs
// within the SQL box's time limit; a SELECT runs through query() and its
// rows stream out of DuckDB's COPY as CSV (duck.CopySelect), the page
// reading only as far as it shows, and at most pageBytes of it.

// isRefused reports whether err is the gate's refusal of a statement.
func isRefused(err error) bool {
	var r *duck.Refused
	return errors.As(err, &r)
}

// errStop ends a CopySelect's reading once a page is full.
var errStop = errors.New("enough rows")

// pageBytes is the most text a page of the SQL box reads of its rows: the
// page holds them all, and so does the reader's browser.
const pageBytes = 16 << 20

// errPageFull is a page whose rows hold more than pageBytes.
var errPageFull = fmt.Errorf("the rows of this page hold more than %d MiB of text, more than a page shows: select fewer or shorter columns (left(text, 200)), or download the whole result as CSV", pageBytes>>20)

// capped reads at most n bytes of r, then fails with errPageFull.
type capped struct {
	r io.Reader
	n int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, errPageFull
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	return n, err
}

// readRows runs q if the gate takes it, handing its columns and each row's
// cells as DuckDB prints them (NULL for null) to fn, which returns false
// to stop.
func readRows(ctx context.Context, conn *sql.Conn, q string, fn func(cols, row []string) bool) ([]string, error) {
	stmt, err := duck.CheckRead(ctx, conn, q)
	if err != nil {
		return nil, err
	}
	if stmt.Kind == duck.Explain {
		cols, rows, err := duck.ExplainRows(ctx, conn, q)
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			if !fn(cols, cellsOf(row)) {
				break
			}
		}
		return cols, nil
	}
	ignoreSIGPIPE()
	var cols []string
	err = duck.CopySelect(ctx, conn, q, "FORMAT csv, HEADER true, NULLSTR 'NULL'", func(r io.Reader) error {
		cr := csv.NewReader(&capped{r: r, n: pageBytes})
		cr.FieldsPerRecord = -1
		head, err := cr.Read()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		cols = head
		for {
			rec, err := cr.Read()
			if err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			if !fn(cols, rec) {
				return errStop
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return cols, err
}

// writeCSV sends the whole result of q, if the gate takes it, as CSV to w
// (a null is an empty cell); nothing is sent before the first byte of the
// result, so a refusal or an error of the query is still the answer.
func writeCSV(ctx context.Context, conn *sql.Conn, q string, w http.ResponseWriter) (started bool, err error) {
	stmt, err := duck.CheckRead(ctx, conn, q)
	if err != nil {
		return false, err
	}
	lw := &lazyCSV{w: w}
	if stmt.Kind == duck.Explain {
		cols, rows, err := duck.ExplainRows(ctx, conn, q)
		if err != nil {
			return false, err
		}
		cw := csv.NewWriter(lw)
		cw.Write(cols)
		for _, row := range rows {
			cw.Write(cellsOf(row))
		}
		cw.Flush()
		return true, cw.Error()
	}
	ignoreSIGPIPE()
	err = duck.CopySelect(ctx, conn, q, "FORMAT csv, HEADER true", func(r io.Reader) error {
		_, err := io.Copy(lw, r)
		return err
	})
	return lw.started, err
}

// lazyCSV sets the headers of a CSV download at its first byte.
type lazyCSV struct {
	w       http.ResponseWriter
	started bool
}

func (l *lazyCSV) Write(p []byte) (int, error) {
	if !l.started {
		l.started = true
		l.w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		l.w.Header().Set("Content-Disposition", `attachment; filename="query.csv"`)
	}
	return l.w.Write(p)
}

// cellsOf prints an EXPLAIN's values.
func cellsOf(row []any) []string {
	cells := make([]string, len(row))
	for i, x := range row {
		if x == nil {
			cells[i] = "NULL"
		} else {
			cells[i] = sqlfmt.Format(x)
		}
	}
	return cells
}

// ignoreSIGPIPE makes DuckDB's write into a pipe whose reader stopped (a
// full page) fail with EPIPE, which ends the query, instead of the signal
// killing the server.
func ignoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }
