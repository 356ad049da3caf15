package vocab

import (
	"context"
	"fmt"
	"io"
	"strings"

	"empties/internal/duck"
)

// shownValues bounds the values outside its set Check names for a column.
const shownValues = 10

// Violation is a column of the vocabulary holding values outside its set:
// Outside names each such value with its row count, most frequent first.
type Violation struct {
	Column  Column
	Outside []string
}

// Invariant says what the column breaks, naming the table, the column and
// the values outside its set.
func (v Violation) Invariant() string {
	c := v.Column
	return fmt.Sprintf("every %s.%s is one of %s; table %s, column %s holds %s",
		c.Table, c.Column, strings.Join(c.Values, ", "), c.Table, c.Column, strings.Join(v.Outside, ", "))
}

// Violations verifies, for every column of the vocabulary (Columns) whose
// table is in tables (those the views of db read), that every value is one
// of its set; NULL passes (a nullable column). It returns the columns that
// hold other values, in Columns' order.
func Violations(ctx context.Context, db duck.Querier, tables []string) ([]Violation, error) {
	have := map[string]bool{}
	for _, t := range tables {
		have[t] = true
	}
	var out []Violation
	for _, c := range Columns() {
		if !have[c.Table] {
			continue
		}
		bad, err := outside(ctx, db, c)
		if err != nil {
			return nil, fmt.Errorf("vocabulary of %s.%s: %w", c.Table, c.Column, err)
		}
		if len(bad) > 0 {
			out = append(out, Violation{Column: c, Outside: bad})
		}
	}
	return out, nil
}

// Check is Violations printed to w, one "invariant broken" line per
// column, returning how many columns broke.
func Check(ctx context.Context, db duck.Querier, tables []string, w io.Writer) (int, error) {
	vs, err := Violations(ctx, db, tables)
	if err != nil {
		return 0, err
	}
	for _, v := range vs {
		fmt.Fprintf(w, "invariant broken: %s\n", v.Invariant())
	}
	return len(vs), nil
}

// outside lists the values of column c outside its set, most frequent
// first, each quoted with its row count.
func outside(ctx context.Context, db duck.Querier, c Column) ([]string, error) {
	in := make([]string, len(c.Values))
	for i, v := range c.Values {
		in[i] = duck.Quote(v)
	}
	col := duck.Ident(c.Column)
	q := fmt.Sprintf("SELECT CAST(%s AS VARCHAR), count(*) FROM %s WHERE %s NOT IN (%s) GROUP BY ALL ORDER BY 2 DESC, 1",
		col, duck.Ident(c.Table), col, strings.Join(in, ", "))
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	more := 0
	for rows.Next() {
		var v string
		var n int64
		if err := rows.Scan(&v, &n); err != nil {
			return nil, err
		}
		if len(out) == shownValues {
			more++
			continue
		}
		unit := "rows"
		if n == 1 {
			unit = "row"
		}
		out = append(out, fmt.Sprintf("%q (%d %s)", v, n, unit))
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("and %d other values", more))
	}
	return out, rows.Err()
}
