package serve

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"empties/internal/duck"
	"empties/internal/store"
)

// A generation is what every page reads: one pinned generation of the
// dataset and an in-memory DuckDB holding its reader views, locked read-only
// (see lockDown). Every query of one request goes through the generation it
// acquired, so a page never mixes two generations' rows, whatever an ingest
// does meanwhile; a newer generation is offered (the banner), and taken only
// when the reader asks.
type generation struct {
	// Number is the generation's number (gen/<n>); 0 for a folder of tables
	// that is no dataset (read as it is, never switched).
	Number  int
	Written string // when the generation was committed (generation.json), "" if unknown
	root    string // the generation folder the views read
	db      *sql.DB
	tables  map[string]bool
	logs    map[string]*logRow // by log_id (loadLogs)

	cellCache cellCache

	refs    sync.WaitGroup // requests using it
	retired atomic.Bool
	report  reportState

	// The SQL box's own DuckDB over the same folder (sqlReader), opened at
	// its first query.
	sqlOnce sync.Once
	sqlRd   *duck.Reader
	sqlErr  error
}

// sqlReader is the database the SQL box runs a reader's statements in: a
// DuckDB of its own over the generation, not the pages' (whose index it
// does not see), locked by the gate of `empties sql` with the SQL box's
// limits (its memory, spill and threads are its own: a query at its limit
// leaves the pages theirs).
func (g *generation) sqlReader(ctx context.Context, lim duck.Limits) (*duck.Reader, error) {
	g.sqlOnce.Do(func() {
		g.sqlRd, g.sqlErr = duck.OpenGeneration(context.WithoutCancel(ctx), g.root, lim)
	})
	return g.sqlRd, g.sqlErr
}

// genInfo is what generation.json says of a generation.
type genInfo struct {
	Generation int    `json:"generation"`
	Written    string `json:"written"`
}

// openGeneration pins the current generation of the dataset at dir (or takes
// a folder of tables as it is), starts writing its report (report, if not
// nil) and opens its read-only database.
func openGeneration(ctx context.Context, dir, scratch string, report ReportFunc, measures MeasuresFunc) (*generation, error) {
	root, err := store.Current(dir)
	if err != nil {
		return nil, err
	}
	if root == "" {
		return nil, store.MissingTable(dir, "replies")
	}
	g := &generation{root: root, tables: map[string]bool{}}
	if b, err := os.ReadFile(filepath.Join(root, "generation.json")); err == nil {
		var info genInfo
		if json.Unmarshal(b, &info) == nil {
			g.Number, g.Written = info.Generation, info.Written
		}
	}
	fail := func(err error) (*generation, error) {
		g.report.remove()
		store.Release(dir, root)
		return nil, err
	}
	if report != nil && store.HasTable(root, "replies") {
		g.report.start(report, measures, root, scratch, g.Number) // beside the index: the first page is the report
	}
	db, err := duck.Open("")
	if err != nil {
		return fail(err)
	}
	tables, err := duck.CreateViews(ctx, db, root, duck.ReaderViews)
	for _, t := range tables {
		g.tables[t] = true
	}
	if err == nil && !g.tables["replies"] {
		err = store.MissingTable(dir, "replies")
	}
	if err == nil {
		err = lockDown(ctx, db, root, scratch)
	}
	if err == nil {
		err = buildIndex(ctx, db, root, g.tables)
	}
	if err != nil {
		db.Close()
		return fail(err)
	}
	g.db = db
	if err == nil {
		err = g.loadLogs(ctx)
	}
	if err == nil {
		_, err = g.cells(ctx, "", "") // the first page's counts
	}
	if err != nil {
		db.Close()
		return fail(err)
	}
	return g, nil
}

// lockDown makes the database read only the generation's folder and change
// no setting, before any reader's statement: the lock of `empties sql`
// (duck.LockReader), DuckDB spilling to the scratch folder.
func lockDown(ctx context.Context, db *sql.DB, root, scratch string) error {
	tmp := filepath.Join(scratch, "duckdb-tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return duck.LockReader(ctx, conn, tmp, duck.Limits{}, root)
}

// release ends the generation once its last request is done: the database
// closes, the pin goes (a later ingest may remove the generation) and its
// report's scratch folder is removed. done counts the release until then, so
// the server's Close can wait for it.
func (g *generation) release(dir string, done *sync.WaitGroup) {
	if !g.retired.CompareAndSwap(false, true) {
		return
	}
	done.Add(1)
	go func() {
		defer done.Done()
		g.refs.Wait()
		g.db.Close()
		g.sqlOnce.Do(func() {}) // none opens after this
		if g.sqlRd != nil {
			g.sqlRd.Close()
		}
		store.Release(dir, g.root)
		g.report.remove()
	}()
}

// currentNumber reads which generation the dataset's current link names now
// (0 when it names none, or dir is no dataset).
func currentNumber(dir string) int {
	t, err := os.Readlink(filepath.Join(dir, store.CurrentLink))
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(filepath.Base(t))
	if err != nil {
		return 0
	}
	return n
}
