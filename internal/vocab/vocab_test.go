package vocab_test

import (
	"testing"

	"empties/internal/vocab"
	"empties/schema"
)

// Every column of the vocabulary is a declared VARCHAR column.
func TestColumnsAreDeclared(t *testing.T) {
	for _, c := range vocab.Columns() {
		tb, ok := schema.Lookup(c.Table)
		if !ok {
			t.Errorf("%s.%s: no table %s in schema/", c.Table, c.Column, c.Table)
			continue
		}
		found := false
		for _, col := range tb.Columns() {
			if col.Name == c.Column {
				found = true
				if col.Type != "VARCHAR" {
					t.Errorf("%s.%s is %s", c.Table, c.Column, col.Type)
				}
			}
		}
		if !found || len(c.Values) == 0 {
			t.Errorf("%s.%s: declared %v, %d values", c.Table, c.Column, found, len(c.Values))
		}
	}
}
