package decide

import (
	"math"
	"slices"
	"strings"
	"testing"

	"empties/internal/manifest"
	"empties/internal/measures"
	"empties/internal/testutil"
	"empties/internal/vocab"
)

func studyThresholds(t *testing.T) manifest.Thresholds {
	t.Helper()
	m, err := manifest.Load(testutil.Path(t, "data", "study.yaml"), manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m.Thresholds
}

// Every test runs a query file of sql/queries/ that reads its table alone and
// yields cell, value and detail first, then only bar and kind.
func TestEveryTestHasItsQueryFile(t *testing.T) {
	qs, err := measures.LoadQueries()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		for _, tt := range r.Tests {
			q, ok := qs.Query(tt.Query)
			if !ok {
				t.Errorf("%s %s: no sql/queries/%s.sql", r.ID, tt.Key, tt.Query)
				continue
			}
			if !slices.Equal(q.Needs, []string{tt.Table}) {
				t.Errorf("%s: sql/%s reads %v, the test says %s", r.ID, q.File, q.Needs, tt.Table)
			}
			if len(q.Columns) < 3 || !slices.Equal(q.Columns[:3], []string{"cell", "value", "detail"}) {
				t.Errorf("%s: sql/%s yields %v", r.ID, q.File, q.Columns)
			}
			for _, c := range q.Columns[3:] {
				if c != "bar" && c != "kind" && c != "low" && c != "high" {
					t.Errorf("%s: sql/%s yields %s", r.ID, q.File, c)
				}
			}
		}
	}
}

// TestEveryThresholdEdge puts one cell below, at, at-up-to-float-noise and
// above every test's manifest threshold: "X or more" is met at X, "more
// than X" is not, and noise never tips either.
func TestEveryThresholdEdge(t *testing.T) {
	th := studyThresholds(t)
	for _, r := range rules {
		for _, tt := range r.Tests {
			v, err := threshold(th, tt.Key)
			if err != nil {
				t.Fatal(err)
			}
			step := 1e-5 // 0.001 pp on a share
			if tt.Unit == pp {
				step = 1e-3
			}
			atEqual := tt.Cmp == atLeast
			for _, c := range []struct {
				name  string
				value float64
				want  bool
			}{
				{"below", v - step, false},
				{"equal", v, atEqual},
				{"equal computed as 1 − (1 − x)", 1 - (1 - v), atEqual},
				{"one ulp above", math.Nextafter(v, 2), atEqual},
				{"one ulp below", math.Nextafter(v, -1), atEqual},
				{"above", v + step, true},
			} {
				cs := tt.mark(v, []cell{{name: "e × r", value: c.value}})
				if cs[0].hit != c.want {
					t.Errorf("%s %s (%s %g): %s (%.17g): hit %v, want %v", r.ID, tt.Key, tt.Cmp.symbol(), v, c.name, c.value, cs[0].hit, c.want)
				}
			}
		}
	}
}

// TestD3CellBar: a D3 cell's own bar (the P0 half-width, in pp) applies where
// it is above the manifest's floor, with the same tolerance; 7/24 of a 0-100
// metric computed two ways is a tie, not "more than".
func TestD3CellBar(t *testing.T) {
	th := studyThresholds(t)
	d3 := rules[4].Tests[0]
	if rules[4].ID != "D3" {
		t.Fatal("rules[4] is not D3")
	}
	floor, _ := threshold(th, d3.Key)
	seven, seventeen, n := 7.0, 17.0, 24.0  // variables: Go folds constant expressions exactly
	sevenOver24 := seven / n * 100          // 29.166666666666668
	sevenOver24b := (1 - seventeen/n) * 100 // 29.166666666666664
	if sevenOver24 == sevenOver24b {
		t.Fatal("the two computations of 7/24 agree; the test needs them apart")
	}
	for _, c := range []struct {
		name       string
		value, bar float64
		want       bool
	}{
		{"tie with the half-width (float noise)", sevenOver24b, sevenOver24, false},
		{"tie the other way round", sevenOver24, sevenOver24b, false},
		{"just above the half-width", sevenOver24 + 1e-6, sevenOver24, true},
		{"just below the half-width", sevenOver24 - 1e-6, sevenOver24, false},
		{"half-width under the floor: the floor decides, tie", floor, floor / 2, false},
		{"half-width under the floor: above the floor", floor + 1e-6, floor / 2, true},
		{"half-width under the floor: below the floor", floor - 1e-6, 0, false},
	} {
		bar := c.bar
		cs := d3.mark(floor, []cell{{name: "e × r × default", value: c.value, bar: &bar}})
		if cs[0].hit != c.want {
			t.Errorf("%s: %.17g vs bar %.17g: hit %v, want %v", c.name, c.value, c.bar, cs[0].hit, c.want)
		}
	}
}

// TestHypothesisTables drives each truth table with the rules' results.
func TestHypothesisTables(t *testing.T) {
	byID := map[string]rule{}
	for _, r := range rules {
		byID[r.ID] = r
	}
	seven, seventeen, n := 7.0, 17.0, 24.0
	mk := func(id string, cs ...cell) result {
		for i := range cs {
			cs[i].unit = byID[id].Tests[cs[i].test].Unit // as cells() sets it
		}
		return result{rule: byID[id], cells: cs}
	}
	hit := func(name, kind string, v float64) cell { return cell{name: name, kind: kind, value: v, hit: true} }
	miss := func(name, kind string, v float64) cell { return cell{name: name, kind: kind, value: v} }
	hyp := map[string]hypothesis{}
	for _, h := range hypotheses {
		hyp[h.ID] = h
	}
	for _, c := range []struct {
		name    string
		h       string
		results []result
		want    string
		cites   string
	}{
		{"H1 no D1a cells", "H1", nil, vocab.VerdictNoData, ""},
		{"H1 both met", "H1", []result{mk("D1a.raise", hit("a × r", "", 0.06)), mk("D1a.helper", hit("a × r", "", 0.06)), mk("D1b", hit("a", "", 0.3))}, vocab.VerdictSupported, ""},
		{"H1 under the helper everywhere", "H1", []result{mk("D1a.raise", miss("a × r", "", 0.001)), mk("D1a.helper", miss("a × r", "", 0.001)), mk("D1b", hit("a", "", 0.3))}, vocab.VerdictAgainst, ""},
		{"H1 raise met, D1b not", "H1", []result{mk("D1a.raise", hit("a × r", "", 0.06)), mk("D1a.helper", hit("a × r", "", 0.06)), mk("D1b", miss("a", "", 0.1))}, vocab.VerdictInconclusive, ""},
		{"H1 helper met, no D1b", "H1", []result{mk("D1a.raise", miss("a × r", "", 0.02)), mk("D1a.helper", hit("a × r", "", 0.02))}, vocab.VerdictNoData, ""},
		{"H2 met", "H2", []result{mk("D2", hit("m: a vs b", "", 0.2))}, vocab.VerdictSupported, ""},
		{"H2 not met", "H2", []result{mk("D2", miss("m: a vs b", "", 0.05))}, vocab.VerdictAgainst, ""},
		{"H2 no data", "H2", nil, vocab.VerdictNoData, ""},
		{"H3 no data", "H3", nil, vocab.VerdictNoData, ""},
		{"H3 the largest change in pp is a safety eval's", "H3",
			[]result{mk("D3", hit("air_bench × r × default", "refusal", 41.3), hit("xstest_safe × r × default", "refusal", 29.17), hit("gpqa × r × default", "capability", 5))}, vocab.VerdictSupported, "air_bench × r × default: 41.3 pp"},
		{"H3 the largest is a capability eval's, a safety eval meets", "H3",
			[]result{mk("D3", hit("a × r × default", "refusal", 3), hit("g × r × default", "capability", 12))}, vocab.VerdictInconclusive, "g × r × default: 12 pp"},
		{"H3 the largest is a safety eval's that misses its bar", "H3",
			[]result{mk("D3", miss("a × r × default", "refusal", 20), hit("g × r × default", "capability", 12))}, vocab.VerdictAgainst, ""},
		{"H3 tie for the largest within tolerance, one safety", "H3",
			[]result{mk("D3", hit("g × r × default", "capability", seven/n*100), hit("a × r × default", "refusal", (1-seventeen/n)*100))}, vocab.VerdictSupported, "a × r × default: 29.17 pp"},
		{"H3 no safety eval meets", "H3", []result{mk("D3", miss("a × r × default", "refusal", 0.5), hit("g × r × default", "capability", 12))}, vocab.VerdictAgainst, ""},
		{"H4 met", "H4", []result{mk("D4", hit("e × j × empty", "", 0.5))}, vocab.VerdictSupported, ""},
		{"H4 clean (zero up to noise)", "H4", []result{mk("D4", miss("e × j × empty", "", 0), miss("e × j × empty", "", 1e-17))}, vocab.VerdictAgainst, ""},
		{"H4 under the thresholds, not zero", "H4", []result{mk("D4", miss("e × j × empty", "", 0.04))}, vocab.VerdictInconclusive, ""},
		{"H4 no data", "H4", nil, vocab.VerdictNoData, ""},
	} {
		results := map[string]result{}
		for _, r := range c.results {
			results[r.rule.ID] = r
		}
		got := hyp[c.h].decide(results)
		if got.Verdict != c.want {
			t.Errorf("%s: %s, want %s", c.name, got.Verdict, c.want)
		}
		if c.cites != "" && got.Cells != c.cites {
			t.Errorf("%s: cites %q, want %q", c.name, got.Cells, c.cites)
		}
	}
}

// TestEveryRuleReadsAManifestThreshold: no rule compares with a number of
// its own.
func TestEveryRuleReadsAManifestThreshold(t *testing.T) {
	th := studyThresholds(t)
	for _, r := range rules {
		if len(r.Tests) == 0 {
			t.Errorf("%s has no test", r.ID)
		}
		for _, tt := range r.Tests {
			if _, err := threshold(th, tt.Key); err != nil {
				t.Errorf("%s: %v", r.ID, err)
			}
		}
	}
	if _, err := threshold(th, "no_such_key"); err == nil {
		t.Error("an unknown key has a threshold")
	}
}

// A share is listed as the report shows every share, a percentage with its
// interval (numfmt, the report's own formats); a D3 delta as the points it
// is, with its unit.
func TestCellsListSharesInPercent(t *testing.T) {
	lo, hi := 0.0149, 0.354
	for _, c := range []struct {
		c    cell
		want string
	}{
		{cell{name: "e × r", value: 1.0 / 12, low: &lo, high: &hi, detail: ", 12 samples", unit: share}, "e × r: 8.3% [1.5%, 35.4%], 12 samples"},
		{cell{name: "e × r", value: 0, detail: "", unit: share}, "e × r: 0%"},
		{cell{name: "e × r × default", value: 41.29, detail: " (P3 − P0 = +41.29 pp)", unit: pp}, "e × r × default: 41.29 pp (P3 − P0 = +41.29 pp)"},
	} {
		if got := c.c.String(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}

// A decision lists its cells largest first, names the deciding cell, and
// says in one sentence what was found (the deciding cell and its number),
// against which threshold, and what it recommends.
func TestDecisionSaysWhatWasFound(t *testing.T) {
	var d1a rule
	for _, r := range rules {
		if r.ID == "D1a.raise" {
			d1a = r
		}
	}
	raise, helper := 0.05, 0.01
	th := manifest.Thresholds{D1aRecommendRaise: &raise, D1aRecommendHelper: &helper}
	lo, hi := 0.138, 0.609
	res := result{rule: d1a, cells: d1a.Tests[0].mark(0.05, []cell{
		{name: "air_bench × a", value: 1.0 / 12, unit: share},
		{name: "gpqa × b", value: 0.01, unit: share},
		{name: "xstest_safe × c", value: 1.0 / 3, low: &lo, high: &hi, detail: ", 12 samples", unit: share},
	})}
	dec := res.decision(th)
	if !strings.HasPrefix(dec.Cells, "xstest_safe × c: 33.3% [13.8%, 60.9%], 12 samples; air_bench × a: 8.3%") {
		t.Errorf("cells %q: the deciding cell first", dec.Cells)
	}
	if dec.DecidingCell == nil || *dec.DecidingCell != "xstest_safe × c" {
		t.Errorf("deciding cell %v", dec.DecidingCell)
	}
	want := "The largest share of samples whose reply hit the token limit before writing anything (truncated_empty) is 33.3% [13.8%, 60.9%], in xstest_safe × c (eval × reasoning route, default arm). " +
		"2 of 3 cells meet the threshold (≥ 5% in any cell), so the pre-registration's recommendation applies: raise max_tokens for reasoning models (or leave it unset) in: air_bench, xstest_safe."
	if dec.Finding != want {
		t.Errorf("finding\n  %q\nwant\n  %q", dec.Finding, want)
	}
	none := result{rule: d1a, cells: d1a.Tests[0].mark(0.05, []cell{{name: "gpqa × b", value: 0.01, unit: share}})}.decision(th)
	if !strings.HasSuffix(none.Finding, "No cell meets the threshold (≥ 5% in any cell): no eval needs to raise max_tokens on this rule.") {
		t.Errorf("finding when not met: %q", none.Finding)
	}
}
