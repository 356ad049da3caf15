package duck_test

import (
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
