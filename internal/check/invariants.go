// Package check holds a dataset's invariants (`empties check`,
// stages/checkcmd). Each is a file of sql/checks/ (kind check: a query
// returning the rows that break it, its header naming the invariant and the
// tables it reads), except two kinds generated from schema/'s declarations
// rather than written by hand: every declared key (schema.TableDef.Key) is
// held by one row only (keyInvariants), and every closed column of
// internal/vocab holds only values of its set (vocab.Violations). A table
// given a key, or a column tagged with a set, is checked with no file to add.
package check

import (
	"context"
	"fmt"
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

// Broken is an invariant the dataset breaks: its name, how many rows break
// it and the query that finds them (a closed column of the vocabulary: its
// name says which values break it, and Query is empty).
type Broken struct {
	Invariant string
	Rows      int
	Query     string
}

// Invariants runs every invariant whose tables the dataset dir holds and
// returns those broken, in order (the files of sql/checks/ by name, then the
// declared keys in schema/'s order, then the vocabulary's closed columns,
// vocab.Violations).
func Invariants(ctx context.Context, dir string) ([]Broken, error) {
	db, tables, err := duck.OpenDataset(ctx, dir)
	if err != nil {
		return nil, err
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
		return nil, err
	}
	var broken []Broken
	for _, inv := range fromFiles {
		present := true
		for _, t := range inv.tables {
			present = present && have[t]
		}
		if !present {
			continue
		}
		rows, err := db.QueryContext(ctx, inv.query)
		if err != nil {
			return nil, fmt.Errorf("invariant %q: %w", inv.name, err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		rows.Close()
		if n > 0 {
			broken = append(broken, Broken{Invariant: inv.name, Rows: n, Query: inv.query})
		}
	}
	keys, err := keyInvariants(ctx, db, tables)
	if err != nil {
		return nil, err
	}
	broken = append(broken, keys...)
	vs, err := vocab.Violations(ctx, db, tables)
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		broken = append(broken, Broken{Invariant: v.Invariant()})
	}
	return broken, nil
}
