package duck

import (
	"context"
	"testing"
)

// Quote and Ident survive whatever a string holds: DuckDB reads back the
// same text, as a literal and as a table and column name.
func TestQuoteAndIdentRoundTrip(t *testing.T) {
	db, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, s := range []string{"plain", "it's", "''", `say "hi"`, `""`, "a;DROP TABLE x;--", "back\\slash", "new\nline", "ünïcode ×", " spaced "} {
		var got string
		if err := db.QueryRowContext(ctx, "SELECT "+Quote(s)).Scan(&got); err != nil || got != s {
			t.Errorf("Quote(%q): read back %q (%v)", s, got, err)
		}
		q := "CREATE OR REPLACE TABLE " + Ident(s) + " AS SELECT 1 AS " + Ident(s)
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Errorf("Ident(%q): %v", s, err)
			continue
		}
		var name string
		if err := db.QueryRowContext(ctx, "SELECT column_name FROM information_schema.columns WHERE table_name = "+Quote(s)).Scan(&name); err != nil || name != s {
			t.Errorf("Ident(%q): the column is named %q (%v)", s, name, err)
		}
		if _, err := db.ExecContext(ctx, "DROP TABLE "+Ident(s)); err != nil {
			t.Errorf("Ident(%q): %v", s, err)
		}
	}
}
