package measures

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"empties/internal/duck"
	sqlfiles "empties/sql"
)

// testParams stand in for a manifest: the interval level, the bootstrap and
// two routes' log model strings.
var testParams = Params{
	Level: 0.95, Seed: 20261022, Resamples: 200,
	RouteModels: []RouteModel{{"judge_route", "openai/judge-model"}, {"r1", "openai/mut"}},
}

func loadSuite(t testing.TB) *Suite {
	t.Helper()
	s, err := LoadSuite(sqlfiles.FS)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// measureCase is one unit test of a .sql file: given rows (INSERT
// statements into the declared input tables) and the exact expected rows.
type measureCase struct {
	name    string
	given   string   // SQL run after the input tables are created
	missing []string // input tables treated as absent from the dataset
	query   string   // default: SELECT * FROM <output> ORDER BY its key
	want    []string // rows: columns joined by " | ", numbers to 6 significant digits, NULL
}

// testDB opens an in-memory DuckDB on one connection.
func testDB(t testing.TB) *sql.Conn {
	t.Helper()
	db, err := duck.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// buildStep creates the input tables the step's closure declares (and only
// those, so a file reading an undeclared table fails), runs given, builds
// the closure and returns the connection and the step's result.
func buildStep(t *testing.T, s *Suite, output, given string, missing []string) (*sql.Conn, *Result) {
	t.Helper()
	ctx := context.Background()
	conn := testDB(t)
	steps := s.Closure(output)
	sources := Sources(steps)
	if err := createSourceTables(ctx, conn, sources); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range statements(stripComments(given)) {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("given: %s: %v", stmt, err)
		}
	}
	present := map[string]bool{}
	for _, n := range sources {
		present[n] = true
	}
	for _, n := range missing {
		present[n] = false
	}
	r, err := newRunner(ctx, conn, testParams, present)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.run(ctx, steps); err != nil {
		t.Fatal(err)
	}
	return conn, r.results[output]
}

func queryRows(t testing.TB, q querier, query string, args ...any) []string {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	all, err := duck.ScanRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, vals := range all {
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = formatValue(v)
		}
		out = append(out, strings.Join(parts, " | "))
	}
	return out
}

// queryColumn runs a query of one column and returns its values, scanned
// as T.
func queryColumn[T any](t testing.TB, q querier, query string, args ...any) []T {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// formatValue prints a value as the expected rows spell it: numbers to six
// significant digits (|x| < 1e-12 is 0), NULL for nulls.
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case float64:
		if math.Abs(x) < 1e-12 {
			return "0"
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	case float32:
		return formatValue(float64(x))
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = formatValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}
