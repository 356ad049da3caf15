package duck_test

import (
	"context"
	"fmt"
	"testing"

	"empties/internal/duck"
)

// ReadPath escapes what DuckDB's file readers expand (* ? [) as
// one-character classes, and quotes like Quote; the pattern is appended as
// is.
func TestReadPath(t *testing.T) {
	for _, tc := range []struct{ path, pattern, want string }{
		{"/d/run1", "*.parquet", `'/d/run1/*.parquet'`},
		{"/d/run*", "*.parquet", `'/d/run[*]/*.parquet'`},
		{"/d/r?n", "", `'/d/r[?]n'`},
		{"/d/[x]", "", `'/d/[[]x]'`},
		{"/d/{a,b}", "", `'/d/{a,b}'`},
		{"/d/it's", "", `'/d/it''s'`},
		{"/d/50%#", "", `'/d/50%#'`},
	} {
		if got := duck.ReadPath(tc.path, tc.pattern); got != tc.want {
			t.Errorf("ReadPath(%q, %q) = %s, want %s", tc.path, tc.pattern, got, tc.want)
		}
	}
}

// A JSON value comes back from Rows as its text, NaN literals and key
// order kept, in the query's row order.
func TestRowsReadJSONAsText(t *testing.T) {
	db, err := duck.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cols, rows, err := duck.Rows(context.Background(), db, `SELECT n, CAST(j AS JSON) AS j FROM (VALUES (2, '{"b": NaN, "a": 1}'), (1, '[1, Infinity]'), (3, NULL)) t(n, j) ORDER BY n DESC`)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(cols, rows)
	if want := `[n j] [[3 <nil>] [2 {"b": NaN, "a": 1}] [1 [1, Infinity]]]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
