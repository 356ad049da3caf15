package measures

import (
	"context"
	"database/sql"
	"fmt"

	"empties/internal/duck"
	sqlfiles "empties/sql"
)

// Query builds the named steps of the embedded suite, and the steps they
// need, over the dataset's tables in an in-memory DuckDB, and hands fn the
// connection. Another stage reads a measure through it (select reads
// priced_calls and call_cost) instead of keeping its own copy of the rule.
// Nothing is written to the dataset.
func Query(ctx context.Context, dataDir string, p Params, names []string, fn func(*sql.Conn) error) error {
	suite, err := LoadSuite(sqlfiles.FS)
	if err != nil {
		return err
	}
	for _, n := range names {
		if _, ok := suite.Step(n); !ok {
			return fmt.Errorf("analyze: no step %s in the suite", n)
		}
	}
	db, err := duck.Open("")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	present, err := createSourceViews(ctx, conn, dataDir, sourceViews)
	if err != nil {
		return err
	}
	r, err := newRunner(ctx, conn, p, present)
	if err != nil {
		return err
	}
	if err := r.run(ctx, suite.Closure(names...)); err != nil {
		return err
	}
	return fn(conn)
}

// Queries is the embedded suite's query files (kind: query), for a stage
// that runs them on its own connection.
type Queries struct{ suite *Suite }

// LoadQueries loads the embedded suite, validated as analyze loads it.
func LoadQueries() (*Queries, error) {
	suite, err := LoadSuite(sqlfiles.FS)
	if err != nil {
		return nil, err
	}
	return &Queries{suite: suite}, nil
}

// Prepare sets the run's variables on q (interval_level from p.Level) and
// creates the macros the query files name in their needs (sql/macros/rates.sql,
// sql/macros/score_values.sql). q must hold one connection: variables are per
// connection.
func (qs *Queries) Prepare(ctx context.Context, q querier, p Params) error {
	if err := setVariables(ctx, q, p); err != nil {
		return err
	}
	want := map[string]bool{}
	for _, st := range qs.suite.queries {
		for _, n := range st.Needs {
			want[n] = true
		}
	}
	for _, st := range qs.suite.Steps {
		if st.Kind == KindMacro && want[st.Output] {
			if _, err := q.ExecContext(ctx, st.Body); err != nil {
				return fmt.Errorf("%s: %w", st.where(), err)
			}
		}
	}
	return nil
}

// SQL returns the query file name with its holes filled.
func (qs *Queries) SQL(name string, holes map[string]string) (string, error) {
	st, ok := qs.suite.Query(name)
	if !ok {
		return "", fmt.Errorf("sql: no query file %s.sql", name)
	}
	return st.Fill(holes)
}

// Rows runs the query file name and checks that it returns the columns its
// header names before the caller scans a row.
func (qs *Queries) Rows(ctx context.Context, q querier, name string, holes map[string]string, args ...any) (*sql.Rows, error) {
	text, err := qs.SQL(name, holes)
	if err != nil {
		return nil, err
	}
	st, _ := qs.suite.Query(name)
	rows, err := q.QueryContext(ctx, text, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", st.where(), err)
	}
	cols, err := rows.Columns()
	if err == nil {
		err = st.CheckColumns(cols)
	}
	if err != nil {
		rows.Close()
		return nil, err
	}
	return rows, nil
}

// Query returns the query file name (kind: query): its header (columns,
// needs) and body.
func (qs *Queries) Query(name string) (*Step, bool) { return qs.suite.Query(name) }

// Checks returns the check files (kind: check), by name: the invariants
// `empties check` runs.
func (qs *Queries) Checks() []*Step { return qs.suite.Checks() }
