package check

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"empties/internal/duck"
	"empties/internal/logset"
	"empties/internal/measures"
	"empties/internal/vocab"
)

// invariant is a contract of the tables: a query that returns the rows that
// break it.
type invariant struct {
	name   string
	tables []string
	query  string
}

// fileInvariants are the invariants written as files of sql/checks/ (kind:
// check), their holes filled with values of the vocabulary: the policies
// from internal/vocab (what `empties schema --format json` exports) and the
// log set's statuses from internal/logset, never a copy here.
func fileInvariants() ([]invariant, error) {
	qs, err := measures.LoadQueries()
	if err != nil {
		return nil, err
	}
	holes := map[string]string{
		"counted":  duck.Quote(logset.Counted),
		"policies": sqlList(sorted(vocab.Policies)),
	}
	var out []invariant
	for _, st := range qs.Checks() {
		given := map[string]string{}
		for _, h := range st.Holes {
			v, ok := holes[h]
			if !ok {
				return nil, fmt.Errorf("%s: check fills no hole {{%s}} (it fills %s)", st.File, h, strings.Join(slices.Sorted(maps.Keys(holes)), ", "))
			}
			given[h] = v
		}
		q, err := st.Fill(given)
		if err != nil {
			return nil, err
		}
		out = append(out, invariant{name: st.Invariant, tables: st.Needs, query: strings.TrimSpace(q)})
	}
	return out, nil
}

// vocabularyInvariants are one invariant per column of the vocabulary
// (vocab.Columns): every value is one of its set. They are generated, not
// written in sql/checks/: each is derived from the vocabulary (a column and
// its closed set), not a hand-written statistic, so a column added to
// vocab.Columns is checked with no file to add.
func vocabularyInvariants() []invariant {
	var out []invariant
	for _, c := range vocab.Columns() {
		col := duck.Ident(c.Column)
		out = append(out, invariant{
			name:   fmt.Sprintf("every %s.%s is one of %s", c.Table, c.Column, strings.Join(c.Values, ", ")),
			tables: []string{c.Table},
			query:  fmt.Sprintf("SELECT %s FROM %s WHERE %s NOT IN (%s)", col, duck.Ident(c.Table), col, sqlList(c.Values)),
		})
	}
	return out
}

// sqlList is the names as a comma-separated list of SQL string literals.
func sqlList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = duck.Quote(n)
	}
	return strings.Join(quoted, ", ")
}

func sorted(names []string) []string {
	out := append([]string(nil), names...)
	sort.Strings(out)
	return out
}

func invariants(ctx context.Context, dir string, w io.Writer) (int, error) {
	db, tables, err := duck.OpenDataset(ctx, dir)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	// The tables of the generation the views read, not of whichever is
	// current when an invariant is reached.
	have := map[string]bool{}
	for _, t := range tables {
		have[t] = true
	}
	fromFiles, err := fileInvariants()
	if err != nil {
		return 0, err
	}
	failed := 0
	for _, inv := range append(fromFiles, vocabularyInvariants()...) {
		present := true
		for _, t := range inv.tables {
			present = present && have[t]
		}
		if !present {
			continue
		}
		rows, err := db.QueryContext(ctx, inv.query)
		if err != nil {
			return 0, fmt.Errorf("invariant %q: %w", inv.name, err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		rows.Close()
		if n > 0 {
			failed++
			fmt.Fprintf(w, "invariant broken: %s (%d rows; query: %s)\n", inv.name, n, inv.query)
		}
	}
	return failed, nil
}
