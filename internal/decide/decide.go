// Package decide applies the pre-registration's decision rules D1-D4 and its
// hypotheses H1-H4 to the analysis tables (`empties decide`, stages/decidecmd), with every
// threshold read from the manifest, and writes the decisions table: for each
// rule the verdict, the recommendation the seed attaches to it, and the
// numbers and cells behind it. A rule whose inputs are missing gets "not
// enough data", never a verdict.
package decide

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"empties/internal/duck"
	"empties/internal/manifest"
	"empties/internal/measures"
	"empties/internal/numfmt"
	"empties/internal/store"
	"empties/internal/vocab"
	"empties/schema"
)

// Config is what a decide run reads: the dataset and the manifest whose
// thresholds decide.
type Config struct {
	Data                string
	Manifest            string
	AllowPreregMismatch bool
}

// Decide applies the rules and hypotheses to the analysis tables of
// cfg.Data and writes the decisions table; it returns the decisions, in
// order (rules, then hypotheses).
func Decide(ctx context.Context, cfg Config) ([]schema.Decision, error) {
	m, err := manifest.Load(cfg.Manifest, manifest.Options{AllowPreregMismatch: cfg.AllowPreregMismatch})
	if err != nil {
		return nil, err
	}
	db, tables, err := duck.OpenDataset(ctx, cfg.Data)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	qs, err := measures.LoadQueries()
	if err != nil {
		return nil, err
	}
	d := &decider{ctx: ctx, db: db, qs: qs, t: m.Thresholds, have: map[string]bool{}}
	for _, t := range tables {
		d.have[t] = true
	}
	rows, err := d.all()
	if err != nil {
		return nil, err
	}
	ds, err := store.Create(store.Stage{Name: schema.StageDecide, Views: duck.ViewFile}, cfg.Data)
	if err != nil {
		return nil, err
	}
	defer ds.Close()
	wr, err := store.WriterOf(ds, schema.Decisions)
	if err != nil {
		return nil, err
	}
	if err := wr.Write(rows...); err != nil {
		return nil, err
	}
	if err := wr.Keep(ds); err != nil {
		return nil, err
	}
	if err := store.MergeTable(ds, schema.Decisions); err != nil {
		return nil, err
	}
	if err := ds.Commit(); err != nil {
		return nil, err
	}
	return rows, nil
}

type decider struct {
	ctx  context.Context
	db   *sql.DB
	qs   *measures.Queries
	t    manifest.Thresholds
	have map[string]bool
}

// Comparators of a rule's test. Both compare in percentage points with the
// tolerance tolerancePP, so a value equal to its threshold up to float noise
// (7/24 computed as 1 − 17/24 and as 7/24 differs in the 15th digit) is equal,
// never "more than". Shares here are x / n with n up to a few thousand
// samples, so two values that really differ do so by far more than 1e-9 pp.
type comparator int

const (
	atLeast  comparator = iota // "X% or more", "reaches"
	moreThan                   // "more than X"
)

// tolerancePP is how far apart, in percentage points, two numbers may be
// and still count as equal at a threshold.
const tolerancePP = 1e-9

func (c comparator) symbol() string {
	if c == atLeast {
		return "≥"
	}
	return ">"
}

// comparePP compares a and b, both in percentage points, equal within
// tolerancePP.
func comparePP(a, b float64) int {
	switch {
	case math.Abs(a-b) <= tolerancePP:
		return 0
	case a < b:
		return -1
	default:
		return 1
	}
}

// passes reports whether v passes threshold t under c; v and t are in unit u.
func (c comparator) passes(u unit, v, t float64) bool {
	d := comparePP(u.toPP(v), u.toPP(t))
	if c == atLeast {
		return d >= 0
	}
	return d > 0
}

// unit is what a rule's values and its manifest threshold are measured in.
type unit int

const (
	share unit = iota // a fraction of 1 (manifest 0.05 = 5%)
	pp                // percentage points of the eval's own scale
)

func (u unit) toPP(v float64) float64 {
	if u == share {
		return v * 100
	}
	return v
}

// show renders a value of the unit as the pages do.
func (u unit) show(v float64) string {
	if u == share {
		return numfmt.Percent(v)
	}
	return numfmt.PP(v)
}

func (u unit) format(v float64) string {
	if u == share {
		return fmt.Sprintf("%g%%", v*100)
	}
	return fmt.Sprintf("%g pp", v)
}

// rule is one decision rule: its tests and the recommendation attached to
// each verdict. In Met and NotMet, {evals} is replaced by the evals of the
// cells that met the rule and {threshold} by the first test's threshold.
type rule struct {
	ID, Title, Question string
	Tests               []test
	Text                string // the threshold in words, with one %s per test (its comparator and value)
	Met, NotMet, NoData string
}

// test is one query of a rule, compared cell by cell with a manifest
// threshold.
type test struct {
	Table string     // the analysis table read (the test has no cells without it); the query's needs
	Query string     // a query file of sql/queries/ yielding cell, value, detail[, bar][, kind]; see rules
	Key   string     // the manifest threshold (thresholds: in data/study.yaml)
	Cmp   comparator // how a cell's value meets the threshold
	Unit  unit       // of the value, the bar and the threshold
	// Found says in plain words what the test's largest value is: {value}
	// and {cell} are that value (in its unit) and its cell.
	Found string
}

// cell is one row behind a rule.
type cell struct {
	name, detail, kind string
	value              float64
	low, high          *float64 // its interval, in its unit, where the query gives one
	bar                *float64 // the cell's own threshold, where larger than the manifest's
	test               int      // index of the rule's test that yielded it
	unit               unit     // of value, as the test's
	hit                bool
}

// String is the cell as the decisions table lists it: its number as the
// report shows it (numfmt: a share as a percentage with its interval, a D3
// delta in percentage points with its unit), then the query's detail.
func (c cell) String() string {
	return c.name + ": " + c.number() + c.detail
}

// number is the cell's value, with its interval where it has one.
func (c cell) number() string {
	s := c.unit.show(c.value)
	if c.low != nil && c.high != nil {
		s += " " + numfmt.Interval(c.unit.show(*c.low), c.unit.show(*c.high))
	}
	return s
}

// result is a rule's evaluated cells.
type result struct {
	rule  rule
	cells []cell
}

// verdictOf is the verdict of a rule over some of its cells.
func verdictOf(cs []cell) string {
	if len(cs) == 0 {
		return vocab.VerdictNoData
	}
	for _, c := range cs {
		if c.hit {
			return vocab.VerdictMet
		}
	}
	return vocab.VerdictNotMet
}

func hits(cs []cell) []cell { return where(cs, func(c cell) bool { return c.hit }) }

func (d *decider) all() ([]schema.Decision, error) {
	var out []schema.Decision
	results := map[string]result{}
	for _, r := range rules {
		res, err := d.rule(r)
		if err != nil {
			return nil, err
		}
		results[r.ID] = res
		out = append(out, res.decision(d.t))
	}
	for _, h := range hypotheses {
		out = append(out, h.decide(results))
	}
	return out, nil
}

// rule runs a rule's tests and marks the cells that meet their thresholds.
func (d *decider) rule(r rule) (result, error) {
	res := result{rule: r}
	for ti, t := range r.Tests {
		bar, err := threshold(d.t, t.Key)
		if err != nil {
			return res, err
		}
		cs, err := d.cells(t, ti)
		if err != nil {
			return res, err
		}
		res.cells = append(res.cells, t.mark(bar, cs)...)
	}
	return res, nil
}

// mark sets each cell's hit: its value passes the manifest's threshold and,
// where the cell has one, its own bar.
func (t test) mark(threshold float64, cs []cell) []cell {
	for i := range cs {
		c := &cs[i]
		c.hit = t.Cmp.passes(t.Unit, c.value, threshold) && (c.bar == nil || t.Cmp.passes(t.Unit, c.value, *c.bar))
	}
	return cs
}

// decision is the decisions row of an evaluated rule.
func (res result) decision(th manifest.Thresholds) schema.Decision {
	r := res.rule
	var tables []string
	var bars []any
	seen := map[string]bool{}
	for _, t := range r.Tests {
		v, _ := threshold(th, t.Key)
		bars = append(bars, t.Cmp.symbol()+" "+t.Unit.format(v))
		if !seen[t.Table] {
			seen[t.Table] = true
			tables = append(tables, t.Table)
		}
	}
	dec := schema.Decision{Rule: r.ID, Title: r.Title, Question: r.Question, Threshold: fmt.Sprintf(r.Text, bars...),
		Inputs: strings.Join(tables, ", ")}
	// The deciding number is the first test's largest value, in its unit.
	first := where(res.cells, func(c cell) bool { return c.test == 0 })
	dec.Value = maxOf(first)
	v0, _ := threshold(th, r.Tests[0].Key)
	fill := strings.NewReplacer("{evals}", evalsOf(hits(res.cells)), "{threshold}", r.Tests[0].Unit.format(v0))
	var shown []cell
	switch dec.Verdict = verdictOf(res.cells); dec.Verdict {
	case vocab.VerdictNoData:
		dec.Recommendation = r.NoData
	case vocab.VerdictMet:
		shown = hits(res.cells)
		dec.Recommendation = fill.Replace(r.Met)
	default:
		shown = res.cells
		dec.Recommendation = fill.Replace(r.NotMet)
	}
	dec.Cells = list(shown)
	if top := largest(first); top != nil {
		dec.DecidingCell = &top.name
	}
	dec.Finding = res.finding(dec, shown)
	return dec
}

// finding is the decision in one plain sentence: what each test's largest
// value is and where, the verdict against the threshold, the recommendation.
func (res result) finding(dec schema.Decision, shown []cell) string {
	r := res.rule
	if dec.Verdict == vocab.VerdictNoData {
		return "Not enough data yet: " + dec.Recommendation + "."
	}
	var found []string
	for ti, t := range r.Tests {
		top := largest(where(res.cells, func(c cell) bool { return c.test == ti }))
		if top == nil || t.Found == "" {
			continue
		}
		found = append(found, strings.NewReplacer("{value}", top.number(), "{cell}", top.name).Replace(t.Found))
	}
	s := capitalize(strings.Join(found, "; ")) + ". "
	if dec.Verdict == vocab.VerdictMet {
		s += fmt.Sprintf("%s of %d cells meet the threshold (%s), so the pre-registration's recommendation applies: %s.",
			capitalize(cellsWord(distinct(shown))), distinct(res.cells), dec.Threshold, dec.Recommendation)
	} else {
		s += fmt.Sprintf("No cell meets the threshold (%s): %s.", dec.Threshold, dec.Recommendation)
	}
	return s
}

// distinct counts the cells of different names (a cell of two tests counts
// once).
func distinct(cs []cell) int {
	seen := map[string]bool{}
	for _, c := range cs {
		seen[c.name] = true
	}
	return len(seen)
}

// cellsWord counts cells in words: one cell, 3 cells.
func cellsWord(n int) string {
	if n == 1 {
		return "one"
	}
	return fmt.Sprint(n)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// largest is the cell with the largest value (the first of those tied), nil
// for none.
func largest(cs []cell) *cell {
	var top *cell
	for i := range cs {
		if top == nil || cs[i].value > top.value {
			top = &cs[i]
		}
	}
	return top
}

// threshold is the manifest's value for a thresholds: key (manifest.Thresholds.Value).
func threshold(t manifest.Thresholds, key string) (float64, error) {
	v, err := t.Value(key)
	if err != nil {
		return 0, fmt.Errorf("decide: %w", err)
	}
	return v, nil
}

// cells runs a test's query; a test whose table is missing has no cells.
func (d *decider) cells(t test, ti int) ([]cell, error) {
	if q, ok := d.qs.Query(t.Query); !ok || !slices.Equal(q.Needs, []string{t.Table}) {
		return nil, fmt.Errorf("decide: the test on %s runs sql/queries/%s.sql, which does not read %s alone", t.Table, t.Query, t.Table)
	}
	if !d.have[t.Table] {
		return nil, nil
	}
	rows, err := d.qs.Rows(d.ctx, d.db, t.Query, nil)
	if err != nil {
		return nil, fmt.Errorf("decide: %s: %w", t.Table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if len(cols) < 3 || cols[0] != "cell" || cols[1] != "value" || cols[2] != "detail" {
		return nil, fmt.Errorf("decide: a query on %s must yield cell, value, detail first, not %v", t.Table, cols)
	}
	var out []cell
	for rows.Next() {
		c := cell{test: ti, unit: t.Unit}
		var v, bar sql.NullFloat64
		var detail, kind sql.NullString
		var low, high sql.NullFloat64
		dest := []any{&c.name, &v, &detail}
		for _, col := range cols[3:] {
			switch col {
			case "bar":
				dest = append(dest, &bar)
			case "kind":
				dest = append(dest, &kind)
			case "low":
				dest = append(dest, &low)
			case "high":
				dest = append(dest, &high)
			default:
				return nil, fmt.Errorf("decide: unexpected column %s in a query on %s", col, t.Table)
			}
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if !v.Valid || math.IsNaN(v.Float64) {
			continue
		}
		c.value, c.detail, c.kind = v.Float64, detail.String, kind.String
		if bar.Valid && !math.IsNaN(bar.Float64) {
			c.bar = &bar.Float64
		}
		if low.Valid && high.Valid && !math.IsNaN(low.Float64) && !math.IsNaN(high.Float64) {
			c.low, c.high = &low.Float64, &high.Float64
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// list lists cells largest value first (ties in the query's order), so the
// first one shown is the deciding cell.
func list(cs []cell) string {
	cs = slices.Clone(cs)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].value > cs[j].value })
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, "; ")
}

func maxOf(cs []cell) *float64 {
	if len(cs) == 0 {
		return nil
	}
	m := cs[0].value
	for _, c := range cs[1:] {
		m = math.Max(m, c.value)
	}
	return &m
}

func where(cs []cell, keep func(cell) bool) []cell {
	var out []cell
	for _, c := range cs {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}

func evalsOf(cs []cell) string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cs {
		e, _, _ := strings.Cut(c.name, " × ")
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// hypothesis is one of H1-H4: a truth table over the rules' facts.
type hypothesis struct {
	ID, Title, Question, Threshold, Inputs string
	Table                                  []when
}

// when is one row of a hypothesis's truth table: if every fact named in If
// has the given verdict, the hypothesis gets Then, citing the cells of the
// fact Cite (if any).
type when struct {
	If   is
	Then string
	Cite string
}

// is maps fact names to the verdict each must have.
type is map[string]string

// decide evaluates the truth table.
func (h hypothesis) decide(results map[string]result) schema.Decision {
	dec := schema.Decision{Rule: h.ID, Title: h.Title, Question: h.Question, Threshold: h.Threshold, Inputs: h.Inputs, Verdict: vocab.VerdictInconclusive}
	for _, row := range h.Table {
		holds := true
		for name, want := range row.If {
			v, _ := fact(results, name)
			holds = holds && v == want
		}
		if holds {
			dec.Verdict = row.Then
			if row.Cite != "" {
				_, cs := fact(results, row.Cite)
				dec.Cells = list(cs)
			}
			break
		}
	}
	dec.Recommendation = hypothesisNotes[dec.Verdict]
	dec.Finding = fmt.Sprintf("%s: %s (%s, from %s).", capitalize(h.Question), dec.Verdict, dec.Recommendation, h.Inputs)
	return dec
}

// fact is a verdict, and the cells behind it, derived from a rule's result:
//
//	R             the rule's verdict (cells: the hits, or all when not met)
//	R[k]          the verdict over the cells of eval kind k only
//	R.largest     the verdict over the cells tied (within tolerancePP) for the largest value
//	R.largest[k]  the same over those of them of kind k (not enough data: none is of kind k)
//	R.zero        met when every cell's value is zero (within tolerancePP)
//
// An unknown rule is "not enough data".
func fact(results map[string]result, name string) (string, []cell) {
	kind := ""
	if i := strings.LastIndex(name, "["); i > 0 && strings.HasSuffix(name, "]") {
		name, kind = name[:i], name[i+1:len(name)-1]
	}
	op := ""
	for _, suffix := range []string{".largest", ".zero"} {
		if strings.HasSuffix(name, suffix) {
			name, op = strings.TrimSuffix(name, suffix), suffix
		}
	}
	res, ok := results[name]
	if !ok {
		return vocab.VerdictNoData, nil
	}
	cs := res.cells
	switch op {
	case ".largest":
		var top []cell
		for _, c := range cs {
			switch {
			case len(top) == 0 || comparePP(res.unitOf(c).toPP(c.value), res.unitOf(top[0]).toPP(top[0].value)) > 0:
				top = []cell{c}
			case comparePP(res.unitOf(c).toPP(c.value), res.unitOf(top[0]).toPP(top[0].value)) == 0:
				top = append(top, c)
			}
		}
		cs = top
	case ".zero":
		if len(cs) == 0 {
			return vocab.VerdictNoData, nil
		}
		for _, c := range cs {
			if comparePP(res.unitOf(c).toPP(c.value), 0) != 0 {
				return vocab.VerdictNotMet, nil
			}
		}
		return vocab.VerdictMet, nil
	}
	if kind != "" {
		cs = where(cs, func(c cell) bool { return c.kind == kind })
	}
	v := verdictOf(cs)
	if v == vocab.VerdictMet {
		return v, hits(cs)
	}
	return v, cs
}

func (res result) unitOf(c cell) unit { return res.rule.Tests[c.test].Unit }
