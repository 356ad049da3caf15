package selectplan

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"empties/internal/manifest"
	"empties/internal/store"
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
	calls    []schema.ModelCall // model-under-test and judge calls, for cost
	judges   map[string]judgeUse
}

// judgeUse is what an eval's judge calls cost on average.
type judgeUse struct {
	Model          string
	Calls          int
	InTok, OutTok  float64
	PerSampleCalls float64
}

func load(dir string) (*inputs, error) {
	in := &inputs{logs: map[string]schema.Log{}, replies: map[replyKey]*schema.Reply{}, judges: map[string]judgeUse{}}
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
	evalOf := map[string]string{}
	for _, o := range in.outcomes {
		evalOf[o.LogID] = o.Eval
	}
	type agg struct {
		model          string
		calls, samples int
		in, out        float64
		seen           map[replyKey]bool
	}
	aggs := map[string]*agg{}
	if err := store.Scan(dir, "model_calls", func(c *schema.ModelCall) error {
		if c.Cache != nil && *c.Cache == "read" {
			return nil // served from inspect's cache: not billed
		}
		cc := *c
		cc.Text, cc.PromptText = "", nil
		in.calls = append(in.calls, cc)
		if c.Kind != "judge" || evalOf[c.LogID] == "" {
			return nil
		}
		a := aggs[evalOf[c.LogID]]
		if a == nil {
			a = &agg{model: c.Model, seen: map[replyKey]bool{}}
			aggs[evalOf[c.LogID]] = a
		}
		a.calls++
		a.in += float64(deref(c.InputTokens))
		a.out += float64(deref(c.OutputTokens))
		k := replyKey{c.LogID, c.SampleID, c.Epoch}
		if !a.seen[k] {
			a.seen[k] = true
			a.samples++
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for e, a := range aggs {
		in.judges[e] = judgeUse{Model: a.model, Calls: a.calls, InTok: a.in / float64(a.calls), OutTok: a.out / float64(a.calls),
			PerSampleCalls: float64(a.calls) / float64(a.samples)}
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

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// routeFor finds the route that prices a model.
func routeFor(m *manifest.Manifest, model string) *manifest.Route {
	for i := range m.Routes {
		r := &m.Routes[i]
		if r.Name == model || r.Model == model {
			return r
		}
		for _, mm := range r.Models {
			if mm == model {
				return r
			}
		}
	}
	return nil
}

func price(p manifest.Prices, in, out, reasoning float64) float64 {
	// Reasoning tokens are part of output tokens in inspect_ai's usage; they
	// are priced at the reasoning price where one is given.
	plain := out - reasoning
	if plain < 0 {
		plain = 0
	}
	r := p.Reasoning
	if r == 0 {
		r = p.Output
	}
	return (in*p.Input + plain*p.Output + reasoning*r) / 1e6
}

// rerunCost estimates one re-run from the tokens its original used; the
// upper bound lets a wide re-run use its whole new budget.
func rerunCost(m *manifest.Manifest, t target, arm string) (est, upper float64, ok bool) {
	r := m.Route(t.o.Route)
	if r == nil || t.reply == nil {
		return 0, 0, false
	}
	in := float64(deref(t.reply.InputTokens))
	out := float64(deref(t.reply.OutputTokens))
	reasoning := float64(deref(t.reply.ReasoningTokens))
	est = price(r.Prices, in, out, reasoning)
	upper = est
	if arm == "wide" {
		upper = price(r.Prices, in, float64(m.Arms.Wide.MaxTokens), 0)
		upper = max(upper, est)
	}
	return est, upper, true
}

// spent is what the logged calls cost so far, at the manifest's prices: a
// model-under-test call at its log's route, any other call at the route
// serving its model.
func spent(m *manifest.Manifest, in *inputs) float64 {
	routeOf := map[string]string{}
	for _, o := range in.outcomes {
		routeOf[o.LogID] = o.Route
	}
	total := 0.0
	for _, c := range in.calls {
		r := routeFor(m, c.Model)
		if c.Kind == "model_under_test" {
			if rr := m.Route(routeOf[c.LogID]); rr != nil {
				r = rr
			}
		}
		if r == nil {
			continue
		}
		reasoning := float64(deref(c.ReasoningTok))
		total += price(r.Prices, float64(deref(c.InputTokens)), float64(deref(c.OutputTokens)), reasoning)
		total += float64(deref(c.CacheReadTok)) * r.Prices.CacheRead / 1e6
	}
	return total
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
			id, idType, log string
		}
		seen := map[string]bool{}
		var pool []cand
		for i := range in.outcomes {
			o := &in.outcomes[i]
			if o.Eval != e || o.Arm != "default" || o.Part != "A" || seen[o.SampleID] {
				continue
			}
			seen[o.SampleID] = true
			c := cand{id: o.SampleID, log: in.logs[o.LogID].Path}
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
		g := Group{Eval: e, Judge: ju.Model,
			Metadata: map[string]string{"empties_part": "C", "empties_eval": e, "empties_arm": "default"}}
		for _, c := range pool {
			g.Samples = append(g.Samples, Sample{ID: c.id, IDType: c.idType, OriginalLog: c.log, Forms: forms})
			plan.Size.Samples++
			calls := len(forms) * size.Repeats
			if ju.PerSampleCalls > 0 {
				calls = int(float64(calls)*ju.PerSampleCalls + 0.5)
			}
			plan.Size.Calls += calls
			if r := routeFor(m, ju.Model); r != nil && ju.Calls > 0 {
				c := price(r.Prices, ju.InTok, ju.OutTok, 0) * float64(calls)
				plan.Cost.EstimateUSD += c
				plan.Cost.UpperBoundUSD += c
			} else if ju.Model != "" {
				plan.Cost.Unpriced = appendUnique(plan.Cost.Unpriced, ju.Model)
			} else {
				plan.Cost.Unpriced = appendUnique(plan.Cost.Unpriced, "judge of "+e+" (no judge calls logged)")
			}
		}
		plan.Groups = append(plan.Groups, g)
	}
	return plan
}

// recordPlanned replaces the planned re-runs of this plan's arm in the
// dataset's planned_reruns table.
func recordPlanned(_ context.Context, dir, out string, plan *Plan) error {
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
	name := filepath.Base(out)
	for _, g := range plan.Groups {
		for _, s := range g.Samples {
			keep = append(keep, schema.PlannedRerun{Plan: name, Arm: plan.Kind, Eval: g.Eval, Route: g.Route, SampleID: s.ID, Epoch: s.Epoch})
		}
	}
	ds, err := store.Create(dir)
	if err != nil {
		return err
	}
	defer ds.Close()
	w, err := store.NewWriter[schema.PlannedRerun](ds, "planned_reruns")
	if err != nil {
		return err
	}
	if err := w.Write(keep...); err != nil {
		return err
	}
	if err := w.Keep(ds); err != nil {
		return err
	}
	if err := store.Merge[schema.PlannedRerun](ds, "planned_reruns"); err != nil {
		return err
	}
	return ds.Commit()
}

func markdown(p *Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s plan\n\n", map[string]string{"wide": "Wide arm", "control": "Control arm", "partc": "Part C"}[p.Kind])
	fmt.Fprintf(&b, "From `%s` with manifest `%s`, seed %d. %d samples, %d model calls.\n\n", p.Data, p.Manifest, p.Seed, p.Size.Samples, p.Size.Calls)
	fmt.Fprintf(&b, "Estimated cost $%.2f (upper bound $%.2f); spent so far $%.2f of the $%.2f ceiling.\n\n",
		p.Cost.EstimateUSD, p.Cost.UpperBoundUSD, p.Cost.SpentUSD, p.Cost.CeilingUSD)
	if len(p.Cost.Unpriced) > 0 {
		fmt.Fprintf(&b, "No prices for: %s.\n\n", strings.Join(p.Cost.Unpriced, ", "))
	}
	for _, g := range p.Groups {
		if p.Kind == "partc" {
			fmt.Fprintf(&b, "## %s (judge %s)\n\n", g.Eval, orNone(g.Judge))
			fmt.Fprintln(&b, "Replay each form as the response for each sample, once per repeat, and let the eval's judge grade it; record `empties_form` (and `empties_sample_id`) in the sample metadata and `empties_part=C` in the eval metadata.")
			fmt.Fprintln(&b)
			fmt.Fprintln(&b, "| sample | forms × repeats |")
			fmt.Fprintln(&b, "|---|---|")
			for _, s := range g.Samples {
				var fs []string
				for _, f := range s.Forms {
					fs = append(fs, fmt.Sprintf("%s × %d", f.Name, f.Repeats))
				}
				fmt.Fprintf(&b, "| %s | %s |\n", s.ID, strings.Join(fs, ", "))
			}
			fmt.Fprintln(&b)
			continue
		}
		fmt.Fprintf(&b, "## %s × %s\n\n", g.Eval, g.Route)
		fmt.Fprintln(&b, "| sample | epoch | original class | original log |")
		fmt.Fprintln(&b, "|---|---|---|---|")
		for _, s := range g.Samples {
			fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", s.ID, s.Epoch, s.OriginalClass, s.OriginalLog)
		}
		fmt.Fprintf(&b, "\n```sh\n%s\n```\n\n", g.Command)
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "none logged"
	}
	return s
}
