// Package selectplan chooses what the arms that start from collected replies
// run (`empties select`): the wide arm (every truncated_empty reply once more
// with more room), the control arm (randomly chosen non-answers at the same
// settings) and Part C (judges grading non-answer forms). It writes a plan a
// person can read and run, the same plan as JSON for a script, and records
// the planned re-runs so their results can be paired back.
package selectplan

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/urfave/cli/v3"

	"empties/internal/classify"
	"empties/internal/cliutil"
	"empties/internal/guard"
	"empties/internal/manifest"
	planjson "empties/internal/plan"
	"empties/internal/store"
	"empties/schema"
)

// Options configure a plan.
type Options struct {
	Kind     string // wide, control, partc
	Data     string
	Manifest string
	Out      string // PLAN: writes PLAN.md and PLAN.json
}

// Command returns the `select` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:      "select",
		Usage:     "plan the wide and control re-runs, the Part C judge tests and Part B's judge calls",
		ArgsUsage: "wide|control|partc|partb",
		Description: `Chooses what to run from the replies already collected (after rescore):

   wide     every truncated_empty reply of the default arm, once, at the
            manifest's arms.wide.max_tokens (D1(b))
   control  arms.control.replies non-answer replies of the default arm, drawn
            with the manifest's seed, at the eval's own settings
   partc    per judge in part_c.evals, samples drawn with the seed, each with
            every non-answer form that can reach that judge (guarded judges
            only get forms that pass their guard), with its repeats
   partb    every reply a policy would send to a judge the original run never
            called (policy_scores.needs_judge), to be replayed to that judge

Writes PLAN.md (per eval × route: sample ids, epochs, settings and a
ready-to-run inspect command) and PLAN.json (the same, for a script and for
` + "`empties rerun PLAN.json`" + `, which runs it), records
the planned re-runs in the dataset (planned_reruns) so rescore can report
re-runs without an original and planned re-runs that never ran, and prints
the plan's size and estimated cost against the budget ceiling. The same data
and seed give the same plan.

Examples:
   empties select wide --data data/study --manifest data/study.yaml --out plans/wide
   empties select control --data data/study --manifest data/study.yaml --out plans/control
   empties select partc --data data/study --manifest data/study.yaml --out plans/partc
   empties select partb --data data/study --manifest data/study.yaml --out plans/partb
   empties rerun plans/wide.json --manifest data/study.yaml`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "data", Aliases: []string{"d"}, Usage: "dataset `DIR` (after rescore)", Required: true},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "plan path `PLAN` (writes PLAN.md and PLAN.json)", Required: true},
		}, cliutil.ManifestFlags(false)...),
		Arguments: []cli.Argument{&cli.StringArg{Name: "kind"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Kind: c.StringArg("kind"), Data: c.String("data"), Manifest: c.String(cliutil.ManifestFlag), Out: c.String("out")}, c.Root().Writer)
		},
	}
}

// The plan's JSON form (package plan, which `empties rerun` reads).
type (
	Plan   = planjson.Plan
	Group  = planjson.Group
	Sample = planjson.Sample
	Form   = planjson.Form
	Size   = planjson.Size
	Cost   = planjson.Cost
)

// Run writes the plan.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	switch opts.Kind {
	case planjson.Wide, planjson.Control, planjson.PartC, planjson.PartB:
	case "":
		return cliutil.Usagef("select: say what to plan: wide, control, partc or partb")
	default:
		return cliutil.Usagef("select: %q: plans are wide, control, partc and partb", opts.Kind)
	}
	if err := store.CheckReadable("select", opts.Data); err != nil {
		return err
	}
	if !store.HasTable(opts.Data, "reply_outcomes") {
		return cliutil.Usagef("select: %s has no reply_outcomes; run `empties rescore --data %s --manifest FILE` first", opts.Data, opts.Data)
	}
	if opts.Out == "" {
		return cliutil.Usagef("select: --out PLAN is required (it writes PLAN.md and PLAN.json)")
	}
	// PLAN.md and PLAN.json are checked before any work: new, or plans
	// empties wrote (they begin with its mark), never a user's file.
	files, err := guard.OpenFiles(guard.Rules{},
		guard.File{Path: opts.Out + ".json", Mark: []byte(jsonMark)}, guard.File{Path: opts.Out + ".md", Mark: []byte(mdMark)})
	if err != nil {
		return err
	}
	defer files.Close()
	m, err := manifest.Load(opts.Manifest, manifest.Options{})
	if err != nil {
		return err
	}
	in, err := load(ctx, opts.Data, m)
	if err != nil {
		return err
	}
	var plan *Plan
	switch opts.Kind {
	case "wide":
		plan = planReruns(m, in, "wide", wideTargets(in))
	case "control":
		plan = planReruns(m, in, "control", controlTargets(m, in))
	case "partc":
		plan = planPartC(m, in)
	case "partb":
		if plan, err = planPartB(ctx, opts.Data, m, in); err != nil {
			return err
		}
	}
	plan.WrittenBy, plan.Kind, plan.Manifest, plan.Data, plan.Seed = "empties select", opts.Kind, opts.Manifest, opts.Data, m.Bootstrap.Seed
	plan.Cost.CeilingUSD = m.Budget.CeilingUSD
	plan.Cost.SpentUSD = in.spent
	plan.Cost.WithinBudget = plan.Cost.SpentUSD+plan.Cost.UpperBoundUSD <= plan.Cost.CeilingUSD
	if err := writePlan(files, opts.Out, plan); err != nil {
		return err
	}
	if !planjson.Replays(opts.Kind) {
		if err := recordPlanned(ctx, opts.Data, opts.Out, plan); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "%s plan: %d groups, %d samples, %d model calls\n", opts.Kind, len(plan.Groups), plan.Size.Samples, plan.Size.Calls)
	fmt.Fprintf(w, "estimated cost $%.2f (upper bound $%.2f); spent so far $%.2f of the $%.2f ceiling: %s\n",
		plan.Cost.EstimateUSD, plan.Cost.UpperBoundUSD, plan.Cost.SpentUSD, plan.Cost.CeilingUSD,
		map[bool]string{true: "within budget", false: "OVER BUDGET"}[plan.Cost.WithinBudget])
	if len(plan.Cost.Unpriced) > 0 {
		fmt.Fprintf(w, "no prices for: %s (add them to the manifest's routes)\n", strings.Join(plan.Cost.Unpriced, ", "))
	}
	for _, n := range plan.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintf(w, "wrote %s.md and %s.json (run it with `empties rerun %s.json --manifest %s`)\n", opts.Out, opts.Out, opts.Out, opts.Manifest)
	return nil
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
		if o.Arm == "default" && o.Part == "A" && o.Class == classify.TruncatedEmpty {
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
		if o.Arm == "default" && o.Part == "A" && o.NonAnswer {
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
				Metadata: map[string]string{"empties_arm": arm, "empties_eval": t.o.Eval, "empties_route": t.o.Route, "empties_part": "A"},
				Cost:     &planjson.GroupCost{}}
			task(g, m, l)
			if arm == "wide" {
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
		sort.Slice(g.Samples, func(i, j int) bool {
			if g.Samples[i].ID != g.Samples[j].ID {
				return g.Samples[i].ID < g.Samples[j].ID
			}
			return g.Samples[i].Epoch < g.Samples[j].Epoch
		})
		g.Command = command(g)
		plan.Groups = append(plan.Groups, *g)
	}
	return plan
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
	parts := []string{"inspect", "eval", planjson.ShellQuote(g.Task), "--model", planjson.ShellQuote(g.Model)}
	for _, k := range slices.Sorted(maps.Keys(g.TaskArgs)) {
		v, _ := json.Marshal(g.TaskArgs[k])
		val := string(v)
		if s, ok := g.TaskArgs[k].(string); ok {
			val = s
		} else if name := planjson.ModelName(g.TaskArgs[k]); name != "" {
			val = name // a judge the log stores as a model config
		}
		parts = append(parts, "-T", planjson.ShellQuote(k+"="+val))
	}
	for _, r := range slices.Sorted(maps.Keys(g.ModelRoles)) {
		if name := planjson.ModelName(g.ModelRoles[r]); name != "" {
			parts = append(parts, "--model-role", planjson.ShellQuote(r+"="+name))
		}
	}
	parts = append(parts, "--sample-id", planjson.ShellQuote(strings.Join(ids, ",")), "--epochs", fmt.Sprint(g.Epochs))
	for _, k := range slices.Sorted(maps.Keys(g.Settings)) {
		switch v := g.Settings[k].(type) {
		case string, bool, float64, int, int64:
			parts = append(parts, "--"+strings.ReplaceAll(k, "_", "-"), planjson.ShellQuote(fmt.Sprint(v)))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(g.Metadata)) {
		parts = append(parts, "--metadata", planjson.ShellQuote(k+"="+g.Metadata[k]))
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

// The marks every plan file empties writes begins with: an existing PLAN.md
// or PLAN.json without it is a user's and is not replaced.
const (
	mdMark   = "<!-- written by empties select"
	jsonMark = "{\n  \"written_by\": \"empties select\""
)

func writePlan(files *guard.Files, out string, plan *Plan) error {
	b, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		return err
	}
	write := func(p string, data []byte) error {
		return files.Write(p, func(w io.Writer) error { _, err := w.Write(data); return err })
	}
	if err := write(out+".json", append(b, '\n')); err != nil {
		return err
	}
	if err := write(out+".md", []byte(mdMark+": `empties select` with the same --out replaces it -->\n"+markdown(plan))); err != nil {
		return err
	}
	return files.Commit()
}
