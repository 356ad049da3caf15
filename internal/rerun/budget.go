package rerun

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Budget is the gate before a plan spends anything: what was spent (the
// dataset's logs, and this plan's logs and the other plans' beside it that
// the dataset does not hold yet, every attempt's calls once, all priced by
// the cost table's SQL) plus the upper bound of what the plan still has to
// run, against the manifest's ceiling. Calls no route prices are counted
// and named, never taken for $0: with any, the total is not a bound.
type Budget struct {
	CeilingUSD     float64
	SpentDataUSD   float64 // the dataset's calls (the cost table), this plan's logs left out
	SpentLogsUSD   float64 // the calls already in this plan's log folder
	SpentOtherUSD  float64 // the calls in the log folders of other plans beside it that the dataset does not hold
	EstimateUSD    float64 // what the plan's remaining samples are estimated to cost
	UpperBoundUSD  float64 // and at most (the wide arm: the whole new budget spent)
	PlanEstimate   float64 // the whole plan, as select estimated it
	PlanUpperBound float64
	Unpriced       []string // routes or judges the plan's estimate could not price
	LeftToRun      bool     // some group has records left to run
	SpentUnpriced  int      // calls spent so far that no route prices
	UnpricedModels []string // their models
}

// Remaining adds a group's share of the estimate for what it has still to
// run: its cost times the share of its planned records not yet in its logs.
func (b *Budget) Remaining(g Group, done int) {
	b.PlanEstimate += g.Cost.EstimateUSD
	b.PlanUpperBound += g.Cost.UpperBoundUSD
	left := 1.0
	if g.Planned > 0 {
		left = 1 - min(1, float64(done)/float64(g.Planned))
	}
	b.LeftToRun = b.LeftToRun || left > 0
	b.EstimateUSD += g.Cost.EstimateUSD * left
	b.UpperBoundUSD += g.Cost.UpperBoundUSD * left
}

// AddUnpriced counts calls spent so far that no route prices.
func (b *Budget) AddUnpriced(calls int, models []string) {
	b.SpentUnpriced += calls
	for _, m := range models {
		if !slices.Contains(b.UnpricedModels, m) {
			b.UnpricedModels = append(b.UnpricedModels, m)
		}
	}
	slices.Sort(b.UnpricedModels)
}

// Total is what the study will have spent at most once the plan is done.
func (b *Budget) Total() float64 { return b.Spent() + b.UpperBoundUSD }

// Spent is what was spent so far.
func (b *Budget) Spent() float64 { return b.SpentDataUSD + b.SpentLogsUSD + b.SpentOtherUSD }

// Over reports whether running the rest of the plan may cross the ceiling.
// It fails closed: a figure that is not a finite number (which the plan and
// the manifest refuse, so only a bug gives one) is over.
func (b *Budget) Over() bool {
	t := b.Total()
	return !(t <= b.CeilingUSD) || math.IsInf(t, 0) || math.IsInf(b.CeilingUSD, 0)
}

// Unbounded reports whether the total leaves calls out: calls spent so far
// or planned that no route prices.
func (b *Budget) Unbounded() bool {
	return b.SpentUnpriced > 0 || (len(b.Unpriced) > 0 && b.LeftToRun)
}

func (b *Budget) unpricedText() string {
	var parts []string
	if b.SpentUnpriced > 0 {
		parts = append(parts, fmt.Sprintf("%d calls so far (%s)", b.SpentUnpriced, strings.Join(b.UnpricedModels, ", ")))
	}
	if len(b.Unpriced) > 0 && b.LeftToRun {
		parts = append(parts, "the plan's calls of "+strings.Join(b.Unpriced, ", "))
	}
	return strings.Join(parts, " and ")
}

// Print says where the budget stands, in one to three lines.
func (b *Budget) Print(w io.Writer) {
	verdict := "within budget"
	switch {
	case b.Over():
		verdict = "OVER BUDGET"
	case b.Unbounded():
		verdict = "within budget for the priced calls only"
	}
	other := ""
	if b.SpentOtherUSD > 0 {
		other = fmt.Sprintf(" + $%.2f in other plans' logs beside them", b.SpentOtherUSD)
	}
	fmt.Fprintf(w, "cost: this plan $%.2f (upper bound $%.2f), $%.2f (upper bound $%.2f) of it still to run; spent so far $%.2f in the dataset + $%.2f in this plan's logs%s; at most $%.2f of the $%.2f ceiling: %s\n",
		b.PlanEstimate, b.PlanUpperBound, b.EstimateUSD, b.UpperBoundUSD, b.SpentDataUSD, b.SpentLogsUSD, other, b.Total(), b.CeilingUSD, verdict)
	if b.Unbounded() {
		fmt.Fprintf(w, "unpriced, not in these figures (never $0): %s; give their models prices in the manifest's routes (a route's models: lists the model names it prices)\n", b.unpricedText())
	}
}

// OverError is the refusal of a plan over the ceiling.
func (b *Budget) OverError(flag string) error {
	return fmt.Errorf("over budget: $%.2f spent + up to $%.2f for the rest of the plan = $%.2f, over the manifest's ceiling of $%.2f; nothing was run (cut the plan, raise budget.ceiling_usd in the manifest, or pass --%s to run it anyway)",
		b.Spent(), b.UpperBoundUSD, b.Total(), b.CeilingUSD, flag)
}

// UnpricedError is the refusal of a plan whose spend cannot be bounded.
func (b *Budget) UnpricedError(flag string) error {
	return fmt.Errorf("the budget cannot be bounded: %s have no price in the manifest, so what they cost is not counted; nothing was run (give their models prices in the manifest's routes, or pass --%s to run with them left out, e.g. for simulated mockllm models)",
		b.unpricedText(), flag)
}
