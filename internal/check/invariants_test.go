package check

import (
	"strings"
	"testing"

	"empties/schema"
)

// Every file of sql/checks/ becomes an invariant with its holes filled and
// its tables declared in schema/; the names are distinct, as check prints
// them.
func TestFileInvariants(t *testing.T) {
	invs, err := fileInvariants()
	if err != nil {
		t.Fatal(err)
	}
	if len(invs) < 7 {
		t.Fatalf("%d invariants from sql/checks/, want at least 7", len(invs))
	}
	seen := map[string]bool{}
	for _, inv := range invs {
		if seen[inv.name] {
			t.Errorf("invariant %q twice", inv.name)
		}
		seen[inv.name] = true
		if strings.Contains(inv.query, "{{") {
			t.Errorf("%s: a hole left unfilled: %s", inv.name, inv.query)
		}
		for _, tb := range inv.tables {
			if _, ok := schema.Lookup(tb); !ok {
				t.Errorf("%s: reads %s, not a table of schema/", inv.name, tb)
			}
		}
	}
	for _, want := range []string{"every re-scored reply has exactly P0-P3", "every superseded_by leads to a counted log of the dataset"} {
		if !seen[want] {
			t.Errorf("no invariant %q", want)
		}
	}
}
