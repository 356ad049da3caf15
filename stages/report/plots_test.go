package report

import (
	"testing"

	"empties/internal/classify"
)

// Every class of the classifier has its own colour in the class-share plot.
func TestEveryClassHasAColour(t *testing.T) {
	seen := map[string]string{}
	for _, c := range classify.Classes() {
		col, ok := classColors[c]
		if !ok {
			t.Errorf("class %s has no colour", c)
			continue
		}
		key := string([]byte{col.R, col.G, col.B})
		if other, dup := seen[key]; dup {
			t.Errorf("%s and %s share a colour", c, other)
		}
		seen[key] = c
	}
	if len(classColors) != len(classify.Classes()) {
		t.Errorf("%d colours for %d classes", len(classColors), len(classify.Classes()))
	}
}
