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
