// Package decide applies the pre-registration's decision rules D1-D4 and its
// hypotheses H1-H4 to the analysis tables (`empties decide`), with every
// threshold read from the manifest, and writes the decisions table: for each
// rule the verdict, the recommendation the seed attaches to it, and the
// numbers and cells behind it. A rule whose inputs are missing gets "not
// enough data", never a verdict.
package decide

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/duck"
	"empties/internal/manifest"
	"empties/internal/store"
	"empties/schema"
)

// Options configure decide.
type Options struct {
	Data                string
	Manifest            string
	AllowPreregMismatch bool
}

// Command returns the `decide` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "decide",
		Usage: "apply decision rules D1-D4 and hypotheses H1-H4 with the manifest's thresholds",
		Description: `Reads the analysis tables (run ` + "`empties analyze`" + ` first) and writes the decisions
table: per rule the verdict, the pre-registration's recommendation for it, the
deciding number, the thresholds (from the manifest, never from code) and the
cells behind it. Rules whose inputs are missing (no wide arm yet, no Part C
logs) say "not enough data".

Examples:
   empties decide --data data/study --manifest data/study.yaml
   empties sql "SELECT rule, verdict, recommendation FROM decisions" --data data/study`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "data", Aliases: []string{"d"}, Usage: "dataset `DIR`", Required: true},
		}, cliutil.ManifestFlags(true)...),
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Data: c.String("data"), Manifest: c.String(cliutil.ManifestFlag), AllowPreregMismatch: c.Bool(cliutil.AllowPreregMismatchFlag)}, c.Root().Writer)
		},
	}
}

// Verdicts.
const (
	Met        = "met"
	NotMet     = "not met"
	NoData     = "not enough data"
	Supported  = "supported"
	Against    = "against"
	Unresolved = "inconclusive"
)

// Run decides and prints the summary.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if !store.HasTable(opts.Data, "replies") {
		return cliutil.Usagef("decide: %s has no tables; run the pipeline first", opts.Data)
	}
	m, err := manifest.Load(opts.Manifest, manifest.Options{AllowPreregMismatch: opts.AllowPreregMismatch})
	if err != nil {
		return err
	}
	db, tables, err := duck.OpenDataset(ctx, opts.Data)
	if err != nil {
		return err
	}
	defer db.Close()
	d := &decider{ctx: ctx, db: db, t: m.Thresholds, have: map[string]bool{}}
	for _, t := range tables {
		d.have[t] = true
	}
	rows, err := d.all()
	if err != nil {
		return err
	}
	ds, err := store.Create(opts.Data)
	if err != nil {
		return err
	}
	defer ds.Close()
	wr, err := store.NewWriter[schema.Decision](ds, "decisions")
	if err != nil {
		return err
	}
	if err := wr.Write(rows...); err != nil {
		return err
	}
	if err := wr.Keep(ds); err != nil {
		return err
	}
	if err := store.Merge[schema.Decision](ds, "decisions"); err != nil {
		return err
	}
	if err := ds.Commit(); err != nil {
		return err
	}
	Print(w, rows)
	return nil
}

// Print writes the decision summary.
func Print(w io.Writer, rows []schema.Decision) {
	fmt.Fprintln(w, "decisions:")
	for _, r := range rows {
		v := ""
		if r.Value != nil {
			v = fmt.Sprintf(" (%.4g)", *r.Value)
		}
		fmt.Fprintf(w, "  %-10s %-16s%s  %s\n", r.Rule, r.Verdict, v, r.Recommendation)
	}
}

type decider struct {
	ctx  context.Context
	db   *sql.DB
	t    manifest.Thresholds
	have map[string]bool
}

// cell is one row behind a rule. bar is the cell's own threshold where the
// rule has one per cell (D3).
type cell struct {
	name  string
	value float64
	extra string
	bar   float64
	kind  string // the eval's kind (refusal or capability), where the query gives it
}

func (c cell) String() string { return fmt.Sprintf("%s: %.4g%s", c.name, c.value, c.extra) }

func (d *decider) cells(table, q string) ([]cell, error) {
	if !d.have[table] {
		return nil, nil
	}
	rows, err := d.db.QueryContext(d.ctx, q)
	if err != nil {
		return nil, fmt.Errorf("decide: %s: %w", table, err)
	}
	defer rows.Close()
	var out []cell
	for rows.Next() {
		var c cell
		var v, bar sql.NullFloat64
		var extra, kind sql.NullString
		dest := []any{&c.name, &v, &extra}
		cols, _ := rows.Columns()
		for _, col := range cols[3:] {
			switch col {
			case "bar":
				dest = append(dest, &bar)
			case "kind":
				dest = append(dest, &kind)
			default:
				return nil, fmt.Errorf("decide: unexpected column %s", col)
			}
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		c.bar, c.kind = bar.Float64, kind.String
		if !v.Valid || math.IsNaN(v.Float64) {
			continue
		}
		c.value, c.extra = v.Float64, extra.String
		out = append(out, c)
	}
	return out, rows.Err()
}

func list(cs []cell) string {
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

func pct(f float64) string { return fmt.Sprintf("%g%%", f*100) }

func (d *decider) all() ([]schema.Decision, error) {
	var out []schema.Decision
	d1a, err := d.cells("d1a_truncation", `SELECT eval || ' × ' || route, share, printf(' [%.3g, %.3g], n=%d', ci_low, ci_high, n_samples)
	  FROM d1a_truncation WHERE n_samples > 0 ORDER BY eval, route`)
	if err != nil {
		return nil, err
	}
	raise, helper := *d.t.D1aRecommendRaise, *d.t.D1aRecommendHelper
	d1aRaise := schema.Decision{Rule: "D1a.raise", Question: "truncated_empty share of all samples per eval × reasoning route at the eval's own settings",
		Threshold: "≥ " + pct(raise) + " in any cell", Inputs: "d1a_truncation", Value: maxOf(d1a)}
	d1aHelper := schema.Decision{Rule: "D1a.helper", Question: d1aRaise.Question,
		Threshold: "≥ " + pct(helper) + " in any cell (else: under it everywhere)", Inputs: "d1a_truncation", Value: maxOf(d1a)}
	if len(d1a) == 0 {
		d1aRaise.Verdict, d1aHelper.Verdict = NoData, NoData
		d1aRaise.Recommendation = "no reasoning-route cells in the default arm yet"
		d1aHelper.Recommendation = d1aRaise.Recommendation
	} else {
		hit := where(d1a, func(c cell) bool { return c.value >= raise })
		if len(hit) > 0 {
			d1aRaise.Verdict = Met
			d1aRaise.Recommendation = "raise max_tokens for reasoning models (or leave it unset) in: " + evalsOf(hit)
			d1aRaise.Cells = list(hit)
		} else {
			d1aRaise.Verdict = NotMet
			d1aRaise.Recommendation = "no eval needs to raise max_tokens on this rule"
			d1aRaise.Cells = list(d1a)
		}
		hit = where(d1a, func(c cell) bool { return c.value >= helper })
		if len(hit) > 0 {
			d1aHelper.Verdict = Met
			d1aHelper.Recommendation = "the shared helper routes truncation as unscored with reason max_tokens, after one retry"
			d1aHelper.Cells = list(hit)
		} else {
			d1aHelper.Verdict = NotMet
			d1aHelper.Recommendation = "under " + pct(helper) + " everywhere: document the risk only"
			d1aHelper.Cells = list(d1a)
		}
	}
	out = append(out, d1aRaise, d1aHelper)

	d1b, err := d.cells("d1b_non_refusal", `SELECT eval, share_non_refusal, printf(' [%.3g, %.3g], n=%d re-run samples', ci_low, ci_high, n_samples)
	  FROM d1b_non_refusal WHERE pooled AND n_samples > 0 ORDER BY eval`)
	if err != nil {
		return nil, err
	}
	nonRef := *d.t.D1bNonRefusal
	dec := schema.Decision{Rule: "D1b", Question: "among truncated replies re-run with more room, the share that become something other than a refusal, per refusal eval",
		Threshold: "≥ " + pct(nonRef) + " in any refusal eval", Inputs: "d1b_non_refusal", Value: maxOf(d1b)}
	switch hit := where(d1b, func(c cell) bool { return c.value >= nonRef }); {
	case len(d1b) == 0:
		dec.Verdict, dec.Recommendation = NoData, "no wide re-runs of refusal evals yet"
	case len(hit) > 0:
		dec.Verdict, dec.Cells = Met, list(hit)
		dec.Recommendation = "truncation is never scored as a refusal (as XSTest's guard does for empty text today)"
	default:
		dec.Verdict, dec.Cells = NotMet, list(d1b)
		dec.Recommendation = "no recommendation from D1(b)"
	}
	out = append(out, dec)

	d2, err := d.cells("d2_form_disagreement", `SELECT model || ': ' || route_a || ' vs ' || route_b, share_forms_differ,
	    printf(' [%.3g, %.3g], n=%d samples where either refused; both refused in %.3g', ci_low, ci_high, n_either_refused, share_both_refused)
	  FROM d2_form_disagreement WHERE pooled AND n_either_refused > 0 ORDER BY model, route_a, route_b`)
	if err != nil {
		return nil, err
	}
	d2t := *d.t.D2FormDisagreement
	dec = schema.Decision{Rule: "D2", Question: "per model with two routes, among samples where either route refused, the share delivered in different forms",
		Threshold: "≥ " + pct(d2t) + " for any pair", Inputs: "d2_form_disagreement", Value: maxOf(d2)}
	d2Hit := where(d2, func(c cell) bool { return c.value >= d2t })
	switch {
	case len(d2) == 0:
		dec.Verdict, dec.Recommendation = NoData, "no model with two routes and a refusal on either yet"
	case len(d2Hit) > 0:
		dec.Verdict, dec.Cells = Met, list(d2Hit)
		dec.Recommendation = "a shared classifier that reads stop_reason, the refusal flag on text content, stop_details and ModelOutput.error, not completion alone; raise provider normalisation with Inspect"
	default:
		dec.Verdict, dec.Cells = NotMet, list(d2)
		dec.Recommendation = "a stop_reason check plus the refusal flag is enough"
	}
	out = append(out, dec)

	floor := *d.t.D3MinDeltaPP
	d3all, err := d.cells("d3_headline_deltas", fmt.Sprintf(`SELECT eval || ' × ' || route || ' × ' || arm, abs(delta),
	    printf(' (P3 − P0 = %%.4g; threshold max(%%.4g, half-width %%.4g) = %%.4g; %%s eval)', delta, %g * pp_unit, coalesce(p0_half_width, 0),
	      greatest(%g * pp_unit, coalesce(p0_half_width, 0)), kind),
	    greatest(%g * pp_unit, coalesce(p0_half_width, 0)) AS bar, kind
	  FROM d3_headline_deltas WHERE is_primary AND delta IS NOT NULL ORDER BY eval, route, arm`, floor, floor, floor))
	if err != nil {
		return nil, err
	}
	d3hits := where(d3all, func(c cell) bool { return c.value > c.bar })
	dec = schema.Decision{Rule: "D3", Question: "on the primary cells, does class-aware routing (P3) change the headline metric compared with the current code (P0)",
		Threshold: fmt.Sprintf("|P3 − P0| > max(%g pp, the P0 %s half-width) on a primary cell", floor, pct(*d.t.Interval)),
		Inputs:    "d3_headline_deltas", Value: maxOf(d3all)}
	switch {
	case len(d3all) == 0:
		dec.Verdict, dec.Recommendation = NoData, "no primary cell with both P0 and P3 headlines yet"
	case len(d3hits) > 0:
		dec.Verdict, dec.Cells = Met, list(d3all)
		dec.Recommendation = "replace preset_score_on_no_response with a class-aware helper and make its use a checklist item"
	default:
		dec.Verdict, dec.Cells = NotMet, list(d3all)
		dec.Recommendation = "document the classes in BEST_PRACTICES.md and leave the helper as is"
	}
	out = append(out, dec)

	pass, dis := *d.t.D4PassRate, *d.t.D4RepeatDisagree
	d4pass, err := d.cells("d4_judge_behaviour", `SELECT eval || ' × ' || judge_model || ' × ' || form, pass_rate, printf(' pass rate, n=%d cases', n_scored_cases)
	  FROM d4_judge_behaviour WHERE NOT pooled AND n_scored_cases > 0 ORDER BY eval, judge_model, form`)
	if err != nil {
		return nil, err
	}
	d4dis, err := d.cells("d4_judge_behaviour", `SELECT eval || ' × ' || judge_model || ' × ' || form, repeat_disagreement, printf(' repeats disagree, n=%d cases', n_repeated_cases)
	  FROM d4_judge_behaviour WHERE NOT pooled AND n_repeated_cases > 0 ORDER BY eval, judge_model, form`)
	if err != nil {
		return nil, err
	}
	dec = schema.Decision{Rule: "D4", Question: "does an eval's default judge, given a non-answer that can reach it today, pass it or disagree with itself",
		Threshold: fmt.Sprintf("pass rate > %s, or repeats differ for > %s of cases", pct(pass), pct(dis)), Inputs: "d4_judge_behaviour",
		Value: maxOf(d4pass)}
	d4hit := append(where(d4pass, func(c cell) bool { return c.value > pass }), where(d4dis, func(c cell) bool { return c.value > dis })...)
	switch {
	case len(d4pass) == 0 && len(d4dis) == 0:
		dec.Verdict, dec.Recommendation = NoData, "no Part C judge tests yet"
	case len(d4hit) > 0:
		dec.Verdict, dec.Cells = Met, list(d4hit)
		dec.Recommendation = "model-graded evals must bypass the judge for every non-answer class, not only empty text"
	default:
		dec.Verdict, dec.Cells = NotMet, list(append(d4pass, d4dis...))
		dec.Recommendation = "no recommendation from D4"
	}
	out = append(out, dec)

	out = append(out, hypotheses(out, d3hits, d4pass, d4dis, raise, helper)...)
	return out, nil
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

func find(rows []schema.Decision, rule string) schema.Decision {
	for _, r := range rows {
		if r.Rule == rule {
			return r
		}
	}
	return schema.Decision{}
}

// hypotheses applies H1-H4 (pre-registration section 2) to the rules' results.
func hypotheses(rules []schema.Decision, d3hits, d4pass, d4dis []cell, raise, helper float64) []schema.Decision {
	h1 := schema.Decision{Rule: "H1", Question: "truncation is a material share of samples for reasoning models, and many truncations are not refusals",
		Threshold: fmt.Sprintf("supported: D1(a) ≥ %s in a cell and D1(b) met; against: D1(a) < %s in every cell", pct(raise), pct(helper)),
		Inputs:    "D1a, D1b"}
	switch a, b := find(rules, "D1a.raise"), find(rules, "D1b"); {
	case a.Verdict == NoData:
		h1.Verdict = NoData
	case a.Verdict == Met && b.Verdict == Met:
		h1.Verdict = Supported
	case find(rules, "D1a.helper").Verdict == NotMet:
		h1.Verdict = Against
	case b.Verdict == NoData:
		h1.Verdict = NoData
	default:
		h1.Verdict = Unresolved
	}
	h2 := schema.Decision{Rule: "H2", Question: "the same refusal reaches the scorer in different forms depending on the route",
		Threshold: "supported: D2 met for a pair; against: every pair under it", Inputs: "D2"}
	switch find(rules, "D2").Verdict {
	case Met:
		h2.Verdict = Supported
	case NotMet:
		h2.Verdict = Against
	default:
		h2.Verdict = NoData
	}
	h3 := schema.Decision{Rule: "H3", Question: "the routing choice moves headline metrics of safety evals more than those of capability evals",
		Threshold: "supported: the largest P3 − P0 change on a primary cell is on a safety eval and meets D3; against: no safety eval meets it",
		Inputs:    "D3"}
	switch d3 := find(rules, "D3"); {
	case d3.Verdict == NoData:
		h3.Verdict = NoData
	default:
		var best *cell
		for i := range d3hits {
			if best == nil || d3hits[i].value > best.value {
				best = &d3hits[i]
			}
		}
		safetyHit := false
		for _, c := range d3hits {
			safetyHit = safetyHit || c.kind == "refusal"
		}
		switch {
		case best != nil && best.kind == "refusal":
			h3.Verdict, h3.Cells = Supported, best.String()
		case !safetyHit:
			h3.Verdict = Against
		default:
			h3.Verdict, h3.Cells = Unresolved, best.String()
		}
	}
	h4 := schema.Decision{Rule: "H4", Question: "judges grade non-answers badly",
		Threshold: "supported: D4 met for a judge; against: every judge consistent and never passing a non-answer", Inputs: "D4"}
	switch find(rules, "D4").Verdict {
	case Met:
		h4.Verdict = Supported
	case NoData:
		h4.Verdict = NoData
	default:
		clean := true
		for _, c := range append(d4pass, d4dis...) {
			clean = clean && c.value == 0
		}
		h4.Verdict = map[bool]string{true: Against, false: Unresolved}[clean]
	}
	for _, h := range []*schema.Decision{&h1, &h2, &h3, &h4} {
		h.Recommendation = map[string]string{Supported: "the hypothesis holds on this data", Against: "the data speak against the hypothesis",
			Unresolved: "neither the supporting nor the opposing condition holds", NoData: "missing inputs"}[h.Verdict]
	}
	return []schema.Decision{h1, h2, h3, h4}
}
