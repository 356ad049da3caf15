package check

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"empties/internal/duck"
	"empties/schema"
)

// keyInvariants are the declared keys' invariants, generated from schema/:
// for every table with a key (schema.TableDef.Key) whose rows the dataset
// holds, no two rows share it. A NULL in a key column is a value like any
// other (two rows of one path with no member repeat ingest_errors' key).
func keyInvariants(ctx context.Context, db *sql.DB, tables []string) ([]Broken, error) {
	have := map[string]bool{}
	for _, t := range tables {
		have[t] = true
	}
	var out []Broken
	for _, t := range schema.Tables() {
		if len(t.Key) == 0 || !have[t.Name] {
			continue
		}
		b, err := repeatedKey(ctx, db, t)
		if err != nil {
			return nil, fmt.Errorf("key of %s: %w", t.Name, err)
		}
		if b != nil {
			out = append(out, *b)
		}
	}
	return out, nil
}

// repeatedKey finds the keys of t that more than one row holds: nil when
// there is none, else the broken invariant naming the table, its key
// columns and the key of most rows (the least, in key order, of those tied),
// with the query that lists them all.
func repeatedKey(ctx context.Context, db *sql.DB, t schema.TableDef) (*Broken, error) {
	cols := make([]string, len(t.Key))
	shown := make([]string, len(t.Key))
	for i, k := range t.Key {
		cols[i] = duck.Ident(k)
		shown[i] = fmt.Sprintf("CAST(%s AS VARCHAR)", duck.Ident(k))
	}
	key := strings.Join(cols, ", ")
	list := fmt.Sprintf("SELECT %s, count(*) AS n FROM %s GROUP BY ALL HAVING count(*) > 1 ORDER BY n DESC, %s",
		key, duck.Ident(t.Name), key)
	q := fmt.Sprintf("SELECT count(*) OVER (), n, %s FROM (%s) LIMIT 1", strings.Join(shown, ", "), list)
	vals := make([]sql.NullString, len(t.Key))
	var repeated, rows int64
	dest := []any{&repeated, &rows}
	for i := range vals {
		dest = append(dest, &vals[i])
	}
	err := db.QueryRowContext(ctx, q).Scan(dest...)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	example := make([]string, len(vals))
	for i, v := range vals {
		example[i] = "NULL"
		if v.Valid {
			example[i] = fmt.Sprintf("%q", v.String)
		}
	}
	keys := "keys repeat"
	if repeated == 1 {
		keys = "key repeats"
	}
	names := strings.Join(t.Key, ", ")
	return &Broken{
		Invariant: fmt.Sprintf("every %s row has its own key (%s); table %s, key (%s): %d %s, e.g. (%s) in %d rows",
			t.Name, names, t.Name, names, repeated, keys, strings.Join(example, ", "), rows),
		Rows:  int(repeated),
		Query: list,
	}, nil
}
