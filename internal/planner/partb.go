package planner

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"

	"empties/internal/manifest"
	"empties/internal/planfile"
	"empties/internal/store"
	"empties/internal/vocab"
	"empties/schema"
)

// planPartB plans Part B's new judge calls (pre-registration, Part B: "new
// judge calls are made only where a policy sends a reply to the judge that
// the original run did not"): every reply whose policy rows need a judge
// (policy_scores.needs_judge: the run's guard scored it without the judge,
// and a policy treats it as an answer), grouped by its log. Each is replayed
// as the response, as stored, and graded by the eval's judge; rescore then
// gives those rows the verdict. A judge that runs inside the solver
// (AIR-Bench) cannot be reached by a replay; such replies are noted.
func planPartB(ctx context.Context, dir string, m *manifest.Manifest, in *inputs) (*Plan, error) {
	need := map[replyKey]bool{}
	if store.HasTable(dir, "policy_scores") {
		err := store.Scan(dir, "policy_scores", func(p *schema.PolicyScore) error {
			if p.NeedsJudge {
				need[replyKey{p.LogID, p.SampleID, p.Epoch}] = true
			}
			return ctx.Err()
		})
		if err != nil {
			return nil, err
		}
	}
	texts := map[replyKey]string{}
	if len(need) > 0 {
		err := store.Scan(dir, "replies", func(r *schema.Reply) error {
			if k := (replyKey{r.LogID, r.SampleID, r.Epoch}); need[k] {
				texts[k] = r.Text
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	type key struct{ eval, route, arm, log string }
	groups := map[key]*Group{}
	var order []key
	plan := &Plan{}
	solver := map[string]int{}
	for i := range in.outcomes {
		o := &in.outcomes[i]
		k := replyKey{o.LogID, o.SampleID, o.Epoch}
		if !need[k] || o.Part != vocab.PartA {
			continue
		}
		if m.Profiles[o.Eval].Judge.Where != vocab.JudgeInScorer {
			solver[o.Eval]++
			continue
		}
		l := in.logs[o.LogID]
		gk := key{o.Eval, o.Route, o.Arm, o.LogID}
		g := groups[gk]
		if g == nil {
			g = &Group{Eval: o.Eval, Route: o.Route, Model: l.Model, ModelArgs: jsonMap(l.ModelArgs), Epochs: 1,
				Metadata: map[string]string{"empties_part": vocab.PartB, "empties_eval": o.Eval, "empties_route": o.Route, "empties_arm": o.Arm},
				Cost:     &planfile.GroupCost{}}
			task(g, m, l)
			groups[gk] = g
			order = append(order, gk)
		}
		text := texts[k]
		s := Sample{ID: o.SampleID, Epoch: o.Epoch, OriginalLog: l.Path, OriginalClass: o.Class, Text: &text}
		if l.EvalID != nil {
			s.OriginalEvalID = *l.EvalID
		}
		if r := in.reply(o); r != nil {
			s.IDType = r.SampleIDType
		}
		g.Samples = append(g.Samples, s)
		plan.Size.Samples++
		addJudgeCost(plan, g, in.judges[o.Eval], o.Eval, 1)
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := order[i], order[j]
		return a.eval+"\x00"+a.route+"\x00"+a.arm+"\x00"+in.logs[a.log].Path < b.eval+"\x00"+b.route+"\x00"+b.arm+"\x00"+in.logs[b.log].Path
	})
	for _, k := range order {
		g := groups[k]
		sortSamples(g.Samples)
		g.Judge = in.judges[g.Eval].Model
		plan.Groups = append(plan.Groups, *g)
	}
	for _, e := range slices.Sorted(maps.Keys(solver)) {
		plan.Notes = append(plan.Notes, fmt.Sprintf("%s: %d replies need a judge that runs inside the solver (judge.where: %s); a replay cannot reach it, so they stay needs_judge",
			e, solver[e], m.Profiles[e].Judge.Where))
	}
	return plan, nil
}
