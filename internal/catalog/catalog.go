// Package catalog documents every table empties writes, as `empties
// schema` prints it: schema/'s declarations, each closed column's doc
// naming its values (internal/vocab), then the analysis outputs' contracts
// (sql/, internal/measures). Neither schema/ (the leaf every package
// imports) nor vocab (which measures' tests import) can read all three.
package catalog

import (
	"sort"
	"strings"

	"empties/internal/measures"
	"empties/internal/vocab"
	"empties/schema"
	sqlfiles "empties/sql"
)

// Table is one table's documentation, from the Go declarations in schema/
// (each vocabulary column's doc naming its values) or from an analysis
// output's contract in sql/: what `empties schema` prints.
type Table struct {
	Name    string          `json:"name"`
	Grain   string          `json:"grain"`
	Doc     string          `json:"doc"`
	Owner   string          `json:"owner"`          // the one stage that writes it (schema.TableDef.Owner; analyze for outputs)
	Also    []string        `json:"also,omitempty"` // its documented second writers (classify)
	Key     []string        `json:"key,omitempty"`  // the columns that identify a row
	Columns []schema.Column `json:"columns"`
}

// Writers says who writes the table, and its key.
func (t Table) Writers() string {
	s := "written by " + strings.Join(append([]string{t.Owner}, t.Also...), " and ")
	if len(t.Key) > 0 {
		s += "; key " + strings.Join(t.Key, ", ")
	}
	return s
}

// Tables lists the stages' tables, then the analysis outputs.
func Tables() ([]Table, error) {
	var out []Table
	values := map[string][]string{}
	for _, c := range vocab.Columns() {
		values[c.Table+"."+c.Column] = c.Values
	}
	for _, t := range schema.Tables() {
		cols := t.Columns()
		for i, c := range cols {
			if v, ok := values[t.Name+"."+c.Name]; ok {
				cols[i].Doc += "; one of " + strings.Join(v, ", ")
			}
		}
		out = append(out, Table{Name: t.Name, Grain: t.Grain, Doc: t.Doc, Owner: t.Owner, Also: t.Also, Key: t.Key, Columns: cols})
	}
	suite, err := measures.LoadSuite(sqlfiles.FS)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(suite.Contracts))
	for n := range suite.Contracts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := suite.Contracts[n]
		t := Table{Name: c.Output, Grain: c.Grain, Owner: schema.StageAnalyze, Doc: strings.TrimSpace(c.Doc) + " (contract sql/" + c.Output + ".yml)"}
		for _, col := range c.Columns {
			t.Columns = append(t.Columns, col.Display())
		}
		out = append(out, t)
	}
	return out, nil
}
