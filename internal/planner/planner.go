// Package planner chooses what the arms that start from collected replies
// run (`empties select`): the wide arm (every truncated_empty reply once more
// with more room), the control arm (randomly chosen non-answers at the same
// settings), Part C (judges grading non-answer forms) and Part B (the judge
// calls a policy needs that the original run never made), as a plan
// (internal/plan's JSON form), and records the planned re-runs in the
// dataset so their results can be paired back (Record).
package planner

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	json "github.com/goccy/go-json"

	"empties/internal/classify"
	"empties/internal/manifest"
	"empties/internal/planfile"
	"empties/internal/vocab"
	"empties/schema"
)

// The plan's JSON form (package plan, which `empties rerun` reads).
type (
	Plan   = planfile.Plan
	Group  = planfile.Group
	Sample = planfile.Sample
	Form   = planfile.Form
	Size   = planfile.Size
	Cost   = planfile.Cost
)

// Config says what to plan.
type Config struct {
	Kind         string // planfile.Wide, Control, PartC or PartB
	Data         string // the dataset (after rescore)
	Manifest     *manifest.Manifest
	ManifestPath string // recorded in the plan
}

// Select plans cfg.Kind from the dataset's replies: the same data and seed
// give the same plan, with its size and its cost against the budget.
func Select(ctx context.Context, cfg Config) (*Plan, error) {
	m := cfg.Manifest
	in, err := load(ctx, cfg.Data, m)
	if err != nil {
		return nil, err
	}
	var plan *Plan
	switch cfg.Kind {
	case planfile.Wide:
		plan = planReruns(m, in, planfile.Wide, wideTargets(in))
	case planfile.Control:
		plan = planReruns(m, in, planfile.Control, controlTargets(m, in))
	case planfile.PartC:
		plan = planPartC(m, in)
	case planfile.PartB:
		if plan, err = planPartB(ctx, cfg.Data, m, in); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("planner: %q: plans are wide, control, partc and partb", cfg.Kind)
	}
	plan.WrittenBy, plan.Kind, plan.Manifest, plan.Data, plan.Seed = "empties select", cfg.Kind, cfg.ManifestPath, cfg.Data, m.Bootstrap.Seed
	plan.Cost.CeilingUSD = m.Budget.CeilingUSD
	plan.Cost.SpentUSD = in.spent
	plan.Cost.WithinBudget = plan.Cost.SpentUSD+plan.Cost.UpperBoundUSD <= plan.Cost.CeilingUSD
	return plan, nil
}

// target is one reply to re-run.
type target struct {
	o     *schema.ReplyOutcome
	reply *schema.Reply
}

func wideTargets(in *inputs) []target {
	var out []target
	for i := range in.outcomes {
		o := &in.outcomes[i]
		if o.Arm == vocab.ArmDefault && o.Part == vocab.PartA && o.Class == classify.TruncatedEmpty {
			out = append(out, target{o, in.reply(o)})
		}
	}
	return out
}

// controlTargets draws the control replies: the non-answers of the default
// arm ranked by a hash of the seed and each reply's identity.
func controlTargets(m *manifest.Manifest, in *inputs) []target {
	var pool []target
	for i := range in.outcomes {
		o := &in.outcomes[i]
		if o.Arm == vocab.ArmDefault && o.Part == vocab.PartA && o.NonAnswer {
			pool = append(pool, target{o, in.reply(o)})
		}
	}
	sort.Slice(pool, func(i, j int) bool {
		return rank(m.Bootstrap.Seed, "control", in.logs[pool[i].o.LogID].SHA256, pool[i].o.SampleID, pool[i].o.Epoch) <
			rank(m.Bootstrap.Seed, "control", in.logs[pool[j].o.LogID].SHA256, pool[j].o.SampleID, pool[j].o.Epoch)
	})
	if len(pool) > m.Arms.Control.Replies {
		pool = pool[:m.Arms.Control.Replies]
	}
	return pool
}

func rank(seed uint64, parts ...any) uint64 {
	h := sha256.New()
	fmt.Fprint(h, seed)
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%v", p)
	}
	return binary.BigEndian.Uint64(h.Sum(nil))
}

func planReruns(m *manifest.Manifest, in *inputs, arm string, targets []target) *Plan {
	type key struct{ eval, route, log string }
	groups := map[key]*Group{}
	var order []key
	plan := &Plan{}
	for _, t := range targets {
		l := in.logs[t.o.LogID]
		k := key{t.o.Eval, t.o.Route, t.o.LogID}
		g := groups[k]
		if g == nil {
			g = &Group{Eval: t.o.Eval, Route: t.o.Route, Model: l.Model, ModelArgs: jsonMap(l.ModelArgs), Settings: settings(l),
				Metadata: map[string]string{"empties_arm": arm, "empties_eval": t.o.Eval, "empties_route": t.o.Route, "empties_part": vocab.PartA},
				Cost:     &planfile.GroupCost{}}
			task(g, m, l)
			if arm == vocab.ArmWide {
				g.Settings["max_tokens"] = m.Arms.Wide.MaxTokens
			}
			groups[k] = g
			order = append(order, k)
		}
		s := Sample{ID: t.o.SampleID, Epoch: t.o.Epoch, OriginalLog: l.Path, OriginalClass: t.o.Class}
		if t.reply != nil {
			s.IDType = t.reply.SampleIDType
		}
		g.Samples = append(g.Samples, s)
		g.Epochs = max(g.Epochs, t.o.Epoch)
		plan.Size.Samples++
		plan.Size.Calls++
		est, upper, ok := rerunCost(in, t, arm)
		if !ok {
			plan.Cost.Unpriced = appendUnique(plan.Cost.Unpriced, t.o.Route)
		}
		plan.Cost.EstimateUSD += est
		plan.Cost.UpperBoundUSD += upper
		g.Cost.EstimateUSD += est
		g.Cost.UpperBoundUSD += upper
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := order[i], order[j]
		return a.eval+"\x00"+a.route+"\x00"+a.log < b.eval+"\x00"+b.route+"\x00"+b.log
	})
	for _, k := range order {
		g := groups[k]
		sortSamples(g.Samples)
		g.Command = command(g)
		plan.Groups = append(plan.Groups, *g)
	}
	return plan
}

// sortSamples puts a group's samples in the order of their id, then epoch.
func sortSamples(s []Sample) {
	sort.Slice(s, func(i, j int) bool {
		if s[i].ID != s[j].ID {
			return s[i].ID < s[j].ID
		}
		return s[i].Epoch < s[j].Epoch
	})
}

// command is the inspect command that runs a group: the same task and
// arguments, the route's model, the changed settings, and eval metadata that
// tells rescore which arm, eval and route the log belongs to. Epochs run up
// to the highest planned epoch, so epoch n pairs with epoch n.
func command(g *Group) string {
	var ids []string
	seen := map[string]bool{}
	for _, s := range g.Samples {
		if !seen[s.ID] {
			seen[s.ID] = true
			ids = append(ids, s.ID)
		}
	}
	parts := []string{"inspect", "eval", planfile.ShellQuote(g.Task), "--model", planfile.ShellQuote(g.Model)}
	for _, k := range slices.Sorted(maps.Keys(g.TaskArgs)) {
		v, _ := json.Marshal(g.TaskArgs[k])
		val := string(v)
		if s, ok := g.TaskArgs[k].(string); ok {
			val = s
		} else if name := planfile.ModelName(g.TaskArgs[k]); name != "" {
			val = name // a judge the log stores as a model config
		}
		parts = append(parts, "-T", planfile.ShellQuote(k+"="+val))
	}
	for _, r := range slices.Sorted(maps.Keys(g.ModelRoles)) {
		if name := planfile.ModelName(g.ModelRoles[r]); name != "" {
			parts = append(parts, "--model-role", planfile.ShellQuote(r+"="+name))
		}
	}
	parts = append(parts, "--sample-id", planfile.ShellQuote(strings.Join(ids, ",")), "--epochs", fmt.Sprint(g.Epochs))
	for _, k := range slices.Sorted(maps.Keys(g.Settings)) {
		switch v := g.Settings[k].(type) {
		case string, bool, float64, int, int64:
			parts = append(parts, "--"+strings.ReplaceAll(k, "_", "-"), planfile.ShellQuote(fmt.Sprint(v)))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(g.Metadata)) {
		parts = append(parts, "--metadata", planfile.ShellQuote(k+"="+g.Metadata[k]))
	}
	return strings.Join(parts, " ")
}

// settings are the generate config the original run used (the log's
// plan.config, which holds the task's settings with the run's own over
// them, and its eval.model_generate_config), so a re-run asks the route
// for what the original asked: its max_tokens, temperature, reasoning
// effort. Unset values are left out.
func settings(l schema.Log) map[string]any {
	out := map[string]any{}
	for _, raw := range []*string{l.TaskConfig, l.GenConfig} {
		for k, v := range jsonMap(raw) {
			if v != nil {
				out[k] = v
			}
		}
	}
	return out
}

// task sets a group's task, its arguments and its judges (model roles) from
// the log it re-runs or replays, with the manifest's judges over them.
func task(g *Group, m *manifest.Manifest, l schema.Log) {
	g.Task, g.TaskArgs, g.ModelRoles = l.Task, jsonMap(l.TaskArgs), jsonMap(l.ModelRoles)
	j, ok := m.Judges[g.Eval]
	if !ok {
		return
	}
	for k, v := range j.TaskArgs {
		if g.TaskArgs == nil {
			g.TaskArgs = map[string]any{}
		}
		g.TaskArgs[k] = v
	}
	for r, v := range j.ModelRoles {
		if g.ModelRoles == nil {
			g.ModelRoles = map[string]any{}
		}
		g.ModelRoles[r] = v
	}
}

func jsonMap(raw *string) map[string]any {
	if raw == nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal([]byte(*raw), &m) != nil {
		return nil
	}
	return m
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}
