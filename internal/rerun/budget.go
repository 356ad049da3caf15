package rerun

import (
	"fmt"
	"io"
	"strings"
)

// Budget is the gate before a plan spends anything: what was spent (the
// dataset's logs, and this plan's logs that the dataset does not hold yet,
// both priced by the cost table's SQL) plus the upper bound of what the plan
// still has to run, against the manifest's ceiling.
type Budget struct {
	CeilingUSD     float64
	SpentDataUSD   float64 // the dataset's calls (the cost table), this plan's logs left out
	SpentLogsUSD   float64 // the calls already in this plan's log folder
	SpentOtherUSD  float64 // the calls in the log folders of other plans beside it that the dataset does not hold
	EstimateUSD    float64 // what the plan's remaining samples are estimated to cost
	UpperBoundUSD  float64 // and at most (the wide arm: the whole new budget spent)
	PlanEstimate   float64 // the whole plan, as select estimated it
	PlanUpperBound float64
	Unpriced       []string // routes or judges the estimate could not price
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
	b.EstimateUSD += g.Cost.EstimateUSD * left
	b.UpperBoundUSD += g.Cost.UpperBoundUSD * left
}

// Total is what the study will have spent at most once the plan is done.
func (b *Budget) Total() float64 { return b.Spent() + b.UpperBoundUSD }

// Spent is what was spent so far.
func (b *Budget) Spent() float64 { return b.SpentDataUSD + b.SpentLogsUSD + b.SpentOtherUSD }

// Over reports whether running the rest of the plan may cross the ceiling.
func (b *Budget) Over() bool { return b.Total() > b.CeilingUSD }

// Print says where the budget stands, in one or two lines.
func (b *Budget) Print(w io.Writer) {
	verdict := "within budget"
	if b.Over() {
		verdict = "OVER BUDGET"
	}
	other := ""
	if b.SpentOtherUSD > 0 {
		other = fmt.Sprintf(" + $%.2f in other plans' logs beside them", b.SpentOtherUSD)
	}
	fmt.Fprintf(w, "cost: this plan $%.2f (upper bound $%.2f), $%.2f (upper bound $%.2f) of it still to run; spent so far $%.2f in the dataset + $%.2f in this plan's logs%s; at most $%.2f of the $%.2f ceiling: %s\n",
		b.PlanEstimate, b.PlanUpperBound, b.EstimateUSD, b.UpperBoundUSD, b.SpentDataUSD, b.SpentLogsUSD, other, b.Total(), b.CeilingUSD, verdict)
	if len(b.Unpriced) > 0 {
		fmt.Fprintf(w, "no prices for %s: their calls are not in the estimate (add them to the manifest's routes)\n", strings.Join(b.Unpriced, ", "))
	}
}

// OverError is the refusal of a plan over the ceiling.
func (b *Budget) OverError(flag string) error {
	return fmt.Errorf("over budget: $%.2f spent + up to $%.2f for the rest of the plan = $%.2f, over the manifest's ceiling of $%.2f; nothing was run (cut the plan, raise budget.ceiling_usd in the manifest, or pass --%s to run it anyway)",
		b.Spent(), b.UpperBoundUSD, b.Total(), b.CeilingUSD, flag)
}
