package catalog_test

import (
	"strings"
	"testing"

	"empties/internal/catalog"
	"empties/internal/vocab"
	"empties/schema"
)

// Tables documents every declared table with its declared columns, each
// vocabulary column naming its values, then the analysis outputs, each
// written by analyze.
func TestTablesDescribeEveryTable(t *testing.T) {
	tables, err := catalog.Tables()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]catalog.Table{}
	for _, tb := range tables {
		if _, dup := byName[tb.Name]; dup {
			t.Errorf("%s listed twice", tb.Name)
		}
		byName[tb.Name] = tb
	}
	declared := schema.Tables()
	for i, d := range declared {
		tb := tables[i]
		if tb.Name != d.Name || len(tb.Columns) != len(d.Columns()) || tb.Owner != d.Owner {
			t.Errorf("table %d: %s with %d columns by %s, declared %s with %d by %s", i, tb.Name, len(tb.Columns), tb.Owner, d.Name, len(d.Columns()), d.Owner)
		}
	}
	for _, c := range vocab.Columns() {
		for _, col := range byName[c.Table].Columns {
			if col.Name == c.Column && !strings.HasSuffix(col.Doc, "; one of "+strings.Join(c.Values, ", ")) {
				t.Errorf("%s.%s: doc %q does not name its values", c.Table, c.Column, col.Doc)
			}
		}
	}
	outputs := tables[len(declared):]
	if len(outputs) == 0 {
		t.Fatal("no analysis output listed")
	}
	for _, tb := range outputs {
		if tb.Owner != schema.StageAnalyze || len(tb.Columns) == 0 || !strings.Contains(tb.Doc, "(contract sql/"+tb.Name+".yml)") {
			t.Errorf("analysis output %s: owner %s, %d columns, doc %q", tb.Name, tb.Owner, len(tb.Columns), tb.Doc)
		}
	}
	if w := byName["replies"].Writers(); !strings.HasPrefix(w, "written by ingest") || !strings.Contains(w, "; key ") {
		t.Errorf("replies: %q", w)
	}
}
