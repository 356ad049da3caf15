package planner

import (
	"slices"
	"testing"

	"empties/internal/planfile"
)

// addJudgeCost is Part B's and Part C's one account of a sample's judge
// calls: as many per replay as the logs made per sample (rounded), priced
// at the logged mean cost per call into the plan and its group, or the
// judge named among the unpriced models.
func TestAddJudgeCost(t *testing.T) {
	plan := &Plan{}
	g := &Group{Cost: &planfile.GroupCost{}}
	priced := judgeUse{Model: "openai/judge", Calls: 3, PerCallUSD: 0.01, Priced: true, PerSampleCalls: 1.5}
	addJudgeCost(plan, g, priced, "hl", 3) // Part C: 3 replays at 1.5 calls each, 4.5 rounds to 5
	addJudgeCost(plan, g, priced, "hl", 1) // Part B: 1.5 rounds to 2
	if plan.Size.Calls != 7 {
		t.Errorf("calls %d, want 5 + 2", plan.Size.Calls)
	}
	const want = 0.01*5 + 0.01*2
	if plan.Cost.EstimateUSD != want || plan.Cost.UpperBoundUSD != want || g.Cost.EstimateUSD != want || g.Cost.UpperBoundUSD != want {
		t.Errorf("plan %+v, group %+v; want $%g in each", plan.Cost, *g.Cost, want)
	}
	addJudgeCost(plan, g, judgeUse{Model: "anthropic/unrouted", Calls: 2, PerCallUSD: 0.02, PerSampleCalls: 2}, "xs", 2)
	addJudgeCost(plan, g, judgeUse{}, "gq", 3) // no judge call logged: one call per replay
	addJudgeCost(plan, g, judgeUse{Model: "anthropic/unrouted"}, "xs", 1)
	if plan.Size.Calls != 7+4+3+1 {
		t.Errorf("calls %d, want 15", plan.Size.Calls)
	}
	if plan.Cost.EstimateUSD != want || g.Cost.EstimateUSD != want {
		t.Errorf("an unpriced judge added a cost: plan %+v, group %+v", plan.Cost, *g.Cost)
	}
	if wantU := []string{"anthropic/unrouted", "judge of gq (no judge calls logged)"}; !slices.Equal(plan.Cost.Unpriced, wantU) {
		t.Errorf("unpriced %q, want %q", plan.Cost.Unpriced, wantU)
	}
}
