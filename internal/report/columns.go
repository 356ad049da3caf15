package report

import (
	"fmt"
	"strings"

	"empties/internal/catalog"
	"empties/schema"
)

// Every column the page shows is described where its table is declared: a
// contract's label and format (sql/marts/<output>.yml), a row struct's
// label and format tags (schema/tables.go), or, for a column a report query
// computes, its header's derived line (sql/queries/report_*.sql). The page
// renders from those declarations and nothing else; a shown column without
// one is an error naming where to declare it.

// describer finds the declaration of a shown column.
type describer struct {
	tables map[string]map[string]schema.Column // table → column → declaration
}

func newDescriber() (*describer, error) {
	ts, err := catalog.Tables()
	if err != nil {
		return nil, err
	}
	d := &describer{tables: map[string]map[string]schema.Column{}}
	for _, t := range ts {
		cols := map[string]schema.Column{}
		for _, c := range t.Columns {
			cols[c.Name] = c
		}
		d.tables[t.Name] = cols
	}
	return d, nil
}

// describe returns the declarations of a query's result columns: the
// query's derived columns first, then those of the tables it reads (its
// needs, or the table filling its hole), in order.
func (b *builder) describe(query, table string, cols []string) ([]schema.Column, error) {
	var derived []schema.Column
	var sources []string
	if st, ok := b.queries.Query(query); ok {
		derived = st.Derived
		sources = st.Needs
	}
	if table != "" {
		sources = []string{table}
	}
	out := make([]schema.Column, len(cols))
	for i, name := range cols {
		found := false
		for _, c := range derived {
			if c.Name == name {
				out[i], found = c, true
			}
		}
		for _, t := range sources {
			if c, ok := b.desc.tables[t][name]; ok && !found {
				out[i], found = c, true
			}
		}
		if !found || schema.CheckDisplay(out[i], cols) != nil {
			where := "its contract (sql/marts/<table>.yml: label:, format:) or row struct (schema/tables.go: label and format tags)"
			if table == "" {
				where += ", or the query's -- derived: header"
			}
			return nil, fmt.Errorf("report: %s: column %s (of %s) has no label and format: declare them in %s", query, name, strings.Join(sources, ", "), where)
		}
		out[i].Label = b.words(out[i].Label)
	}
	return out, nil
}

// words fills a label's mode words: {eval}, {evals}, {route}, {routes} are
// eval(s) and route(s) in a study, task(s) and model(s) without a manifest.
func (b *builder) words(label string) string {
	eval, evals, route, routes := b.modeWords()
	return strings.NewReplacer("{evals}", evals, "{eval}", eval, "{routes}", routes, "{route}", route).Replace(label)
}
