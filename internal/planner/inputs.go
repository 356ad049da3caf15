package planner

import (
	"context"
	"database/sql"
	"fmt"
	"sort"

	"empties/internal/duck"
	"empties/internal/manifest"
	"empties/internal/measures"
	"empties/internal/planfile"
	"empties/internal/store"
	"empties/internal/vocab"
	"empties/schema"
)

type replyKey struct {
	LogID, SampleID string
	Epoch           int64
}

// inputs are the tables a plan is drawn from.
type inputs struct {
	logs     map[string]schema.Log
	outcomes []schema.ReplyOutcome
	replies  map[replyKey]*schema.Reply
	prices   map[replyKey]rerunPrice // what re-running each reply's call costs
	spent    float64                 // what the logged calls cost so far (the cost table's total)
	judges   map[string]judgeUse
}

// rerunPrice is what one reply's call costs again, at its log's route: the
// estimate from the tokens it used, and the wide arm's upper bound with the
// whole new budget spent on output. ok is false without a price.
type rerunPrice struct {
	est, wideUpper float64
	ok             bool
}

// judgeUse is what an eval's judge calls cost on average.
type judgeUse struct {
	Model          string
	Calls          int
	PerCallUSD     float64
	Priced         bool
	PerSampleCalls float64
}

func load(ctx context.Context, dir string, m *manifest.Manifest) (*inputs, error) {
	in := &inputs{logs: map[string]schema.Log{}, replies: map[replyKey]*schema.Reply{}, prices: map[replyKey]rerunPrice{}, judges: map[string]judgeUse{}}
	if err := store.Scan(dir, "logs", func(l *schema.Log) error { in.logs[l.LogID] = *l; return nil }); err != nil {
		return nil, err
	}
	if err := store.Scan(dir, "reply_outcomes", func(o *schema.ReplyOutcome) error { in.outcomes = append(in.outcomes, *o); return nil }); err != nil {
		return nil, err
	}
	if err := store.Scan(dir, "replies", func(r *schema.Reply) error {
		c := *r
		c.Text, c.ReasoningText, c.FinalCompletion, c.SampleMetadata = "", "", nil, nil
		in.replies[replyKey{r.LogID, r.SampleID, r.Epoch}] = &c
		return nil
	}); err != nil {
		return nil, err
	}
	if err := in.loadPrices(ctx, dir, m); err != nil {
		return nil, err
	}
	sort.SliceStable(in.outcomes, func(i, j int) bool {
		a, b := in.outcomes[i], in.outcomes[j]
		return a.PairKey+"\x00"+a.LogID < b.PairKey+"\x00"+b.LogID
	})
	return in, nil
}

func (in *inputs) reply(o *schema.ReplyOutcome) *schema.Reply {
	return in.replies[replyKey{o.LogID, o.SampleID, o.Epoch}]
}

// loadPrices prices every call through the analysis SQL (priced_calls and
// its call_cost), so a plan's numbers are the cost table's: the same route
// lookup, cache reads and writes and reasoning price. study_spend([]) is
// what the dataset's logged calls cost so far (rerun's budget reads the same
// macro); rerun_prices what each reply's call costs
// once more, billed even where inspect's cache served the original;
// judge_prices what an eval's judge calls cost on average, those served from
// the cache left out.
func (in *inputs) loadPrices(ctx context.Context, dir string, m *manifest.Manifest) error {
	qs, err := measures.LoadQueries()
	if err != nil {
		return err
	}
	return measures.Query(ctx, dir, measures.ParamsFrom(m), []string{"study_spend", "judge_prices", "call_cost"}, func(c *sql.Conn) error {
		if err := c.QueryRowContext(ctx, "SELECT cost_usd FROM study_spend([])").Scan(&in.spent); err != nil {
			return fmt.Errorf("select: study_spend: %w", err)
		}
		rows, err := qs.Rows(ctx, c, "rerun_prices", nil, sql.Named("wide_max_tokens", m.Arms.Wide.MaxTokens))
		if err != nil {
			return fmt.Errorf("select: re-run prices: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var k replyKey
			var p rerunPrice
			if err := rows.Scan(&k.LogID, &k.SampleID, &k.Epoch, &p.est, &p.wideUpper); err != nil {
				return err
			}
			p.ok = true
			in.prices[k] = p
		}
		if err := rows.Err(); err != nil {
			return err
		}
		jrows, err := c.QueryContext(ctx, "SELECT eval, judge_model, n_calls, calls_per_sample, priced, per_call_usd FROM judge_prices")
		if err != nil {
			return fmt.Errorf("select: judge_prices: %w", err)
		}
		defer jrows.Close()
		for jrows.Next() {
			var e string
			var j judgeUse
			if err := jrows.Scan(&e, &j.Model, &j.Calls, &j.PerSampleCalls, &j.Priced, &j.PerCallUSD); err != nil {
				return err
			}
			in.judges[e] = j
		}
		return jrows.Err()
	})
}

// addJudgeCost adds to plan and its group g what the eval's judge costs to
// grade one sample's replays (Part B: the stored reply once; Part C: every
// form and repeat): the judge calls, as many per replay as the logs made per
// sample, and their price at the logged mean cost per call, or the judge
// among the plan's unpriced models when no route prices its calls (or no
// judge call of the eval was logged).
func addJudgeCost(plan *Plan, g *Group, ju judgeUse, eval string, replays int) {
	calls := replays
	if ju.PerSampleCalls > 0 {
		calls = int(float64(replays)*ju.PerSampleCalls + 0.5)
	}
	plan.Size.Calls += calls
	switch {
	case ju.Priced && ju.Calls > 0:
		c := ju.PerCallUSD * float64(calls)
		plan.Cost.EstimateUSD += c
		plan.Cost.UpperBoundUSD += c
		g.Cost.EstimateUSD += c
		g.Cost.UpperBoundUSD += c
	case ju.Model != "":
		plan.Cost.Unpriced = appendUnique(plan.Cost.Unpriced, ju.Model)
	default:
		plan.Cost.Unpriced = appendUnique(plan.Cost.Unpriced, "judge of "+eval+" (no judge calls logged)")
	}
}

// rerunCost is what re-running a reply costs: its estimate, and the upper
// bound that lets a wide re-run use its whole new budget.
func rerunCost(in *inputs, t target, arm string) (est, upper float64, ok bool) {
	p := in.prices[replyKey{t.o.LogID, t.o.SampleID, t.o.Epoch}]
	if !p.ok {
		return 0, 0, false
	}
	upper = p.est
	if arm == vocab.ArmWide {
		upper = max(p.wideUpper, p.est)
	}
	return p.est, upper, true
}

// planPartC draws, per judge under test, its samples (ranked by a hash of
// the seed, the eval and the sample id) and lists every form that can reach
// that judge with its repeats.
func planPartC(m *manifest.Manifest, in *inputs) *Plan {
	plan := &Plan{}
	evals := make([]string, 0, len(m.PartC.Evals))
	for e := range m.PartC.Evals {
		evals = append(evals, e)
	}
	sort.Strings(evals)
	for _, e := range evals {
		size := m.PartC.Evals[e]
		p := m.Profiles[e]
		type cand struct {
			id, idType, log, logID string
		}
		seen := map[string]bool{}
		var pool []cand
		for i := range in.outcomes {
			o := &in.outcomes[i]
			if o.Eval != e || o.Arm != vocab.ArmDefault || o.Part != vocab.PartA || seen[o.SampleID] {
				continue
			}
			seen[o.SampleID] = true
			c := cand{id: o.SampleID, log: in.logs[o.LogID].Path, logID: o.LogID}
			if r := in.reply(o); r != nil {
				c.idType = r.SampleIDType
			}
			pool = append(pool, c)
		}
		sort.Slice(pool, func(i, j int) bool {
			return rank(m.Bootstrap.Seed, "partc", e, pool[i].id) < rank(m.Bootstrap.Seed, "partc", e, pool[j].id)
		})
		if len(pool) > size.Samples {
			pool = pool[:size.Samples]
		}
		var forms []Form
		for _, f := range m.PartC.Forms {
			if p.Judge.Guarded && !f.PassesGuard {
				continue // the guard answers these before the judge sees them
			}
			forms = append(forms, Form{Name: f.Name, Text: f.Text, Repeats: size.Repeats})
		}
		ju := in.judges[e]
		g := Group{Eval: e, Judge: ju.Model, Epochs: 1, Cost: &planfile.GroupCost{},
			Metadata: map[string]string{"empties_part": vocab.PartC, "empties_eval": e, "empties_arm": vocab.ArmDefault}}
		if len(pool) > 0 { // the eval's task and judges, as its original run had them
			task(&g, m, in.logs[pool[0].logID])
		}
		for _, c := range pool {
			g.Samples = append(g.Samples, Sample{ID: c.id, IDType: c.idType, OriginalLog: c.log, Forms: forms})
			plan.Size.Samples++
			addJudgeCost(plan, &g, ju, e, len(forms)*size.Repeats)
		}
		plan.Groups = append(plan.Groups, g)
	}
	return plan
}

// Record replaces the planned re-runs of this plan's arm in the planned_reruns
// table of the dataset at dir; name is the plan's file name, without folder.
func Record(dir, name string, plan *Plan) error {
	var keep []schema.PlannedRerun
	if store.HasTable(dir, "planned_reruns") {
		if err := store.Scan(dir, "planned_reruns", func(p *schema.PlannedRerun) error {
			if p.Arm != plan.Kind {
				keep = append(keep, *p)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	for _, g := range plan.Groups {
		for _, s := range g.Samples {
			keep = append(keep, schema.PlannedRerun{Plan: name, Arm: plan.Kind, Eval: g.Eval, Route: g.Route, SampleID: s.ID, Epoch: s.Epoch})
		}
	}
	ds, err := store.Create(store.Stage{Name: schema.StageSelect, Views: duck.ViewFile}, dir)
	if err != nil {
		return err
	}
	defer ds.Close()
	w, err := store.WriterOf(ds, schema.PlannedReruns)
	if err != nil {
		return err
	}
	if err := w.Write(keep...); err != nil {
		return err
	}
	if err := w.Keep(ds); err != nil {
		return err
	}
	if err := store.MergeTable(ds, schema.PlannedReruns); err != nil {
		return err
	}
	return ds.Commit()
}
