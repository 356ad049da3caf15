// Package selectcmd is `empties select`: it plans what the arms that start
// from collected replies run (internal/planner: the wide and control arms,
// Part C, Part B), writes the plan a person can read and run (PLAN.md) and
// the same plan as JSON for a script (PLAN.json), records the planned
// re-runs in the dataset (planner.Record) and prints the plan's size and cost.
package selectcmd

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/guard"
	"empties/internal/manifest"
	"empties/internal/numfmt"
	"empties/internal/planfile"
	"empties/internal/planner"
	"empties/internal/store"
)

// Options configure a plan: the planner.Config its flags give (Run loads
// Config.Manifest from Config.ManifestPath itself), the override of the
// manifest's pre-registration check, and where the plan goes.
type Options struct {
	planner.Config
	AllowPreregMismatch bool
	Out                 string // PLAN: writes PLAN.md and PLAN.json
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
			cliutil.NewDataFlag("written by ingest and rescore"),
			cliutil.NewOutFlag("plan path `PLAN` (writes PLAN.md and PLAN.json)"),
		}, cliutil.ManifestFlags()...),
		Arguments: []cli.Argument{&cli.StringArg{Name: "kind"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Config: planner.Config{Kind: c.StringArg("kind"), Data: c.String(cliutil.DataFlag), ManifestPath: c.String(cliutil.ManifestFlag)},
				AllowPreregMismatch: c.Bool(cliutil.AllowPreregMismatchFlag), Out: c.String(cliutil.OutFlag)}, c.Root().Writer)
		},
	}
}

// Validate checks the options before any work.
func (o Options) Validate() error {
	switch o.Kind {
	case planfile.Wide, planfile.Control, planfile.PartC, planfile.PartB:
	case "":
		return cliutil.Usagef("select: say what to plan: wide, control, partc or partb")
	default:
		return cliutil.Usagef("select: %q: plans are wide, control, partc and partb", o.Kind)
	}
	if o.Data == "" {
		return cliutil.Required("select", "--data DIR")
	}
	if o.ManifestPath == "" {
		return cliutil.Required("select", "--manifest FILE")
	}
	if o.Out == "" {
		return cliutil.Required("select", "--out PLAN (it writes PLAN.md and PLAN.json)")
	}
	return nil
}

// Run writes the plan.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if err := store.RequireTables("select", opts.Data, "reply_outcomes"); err != nil {
		return err
	}
	// PLAN.md and PLAN.json are checked before any work: new, or plans
	// empties wrote (they begin with its mark), never a user's file.
	files, err := guard.OpenFiles(guard.Rules{},
		guard.File{Path: opts.Out + ".json", Mark: []byte(jsonMark)}, guard.File{Path: opts.Out + ".md", Mark: []byte(mdMark)})
	if err != nil {
		return err
	}
	defer files.Close()
	cfg := opts.Config
	if cfg.Manifest, err = manifest.Load(cfg.ManifestPath, manifest.Options{AllowPreregMismatch: opts.AllowPreregMismatch}); err != nil {
		return err
	}
	plan, err := planner.Select(ctx, cfg)
	if err != nil {
		return err
	}
	if err := writePlan(files, opts.Out, plan); err != nil {
		return err
	}
	if !planfile.Replays(opts.Kind) {
		if err := planner.Record(opts.Data, filepath.Base(opts.Out), plan); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "%s plan: %s, %s, %s\n", opts.Kind, numfmt.Plural(int64(len(plan.Groups)), "group", "groups"),
		numfmt.Plural(int64(plan.Size.Samples), "sample", "samples"), numfmt.Plural(int64(plan.Size.Calls), "model call", "model calls"))
	fmt.Fprintf(w, "estimated cost $%.2f (upper bound $%.2f); spent so far $%.2f of the $%.2f ceiling: %s\n",
		plan.Cost.EstimateUSD, plan.Cost.UpperBoundUSD, plan.Cost.SpentUSD, plan.Cost.CeilingUSD,
		map[bool]string{true: "within budget", false: "OVER BUDGET"}[plan.Cost.WithinBudget])
	if len(plan.Cost.Unpriced) > 0 {
		fmt.Fprintf(w, "no prices for: %s (add them to the manifest's routes)\n", strings.Join(plan.Cost.Unpriced, ", "))
	}
	for _, n := range plan.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	override := ""
	if opts.AllowPreregMismatch {
		override = " --" + cliutil.AllowPreregMismatchFlag
	}
	fmt.Fprintf(w, "wrote %s.md and %s.json (run it with `empties rerun %s.json --manifest %s%s`)\n", opts.Out, opts.Out, opts.Out, opts.ManifestPath, override)
	return nil
}

// The marks every plan file empties writes begins with: an existing PLAN.md
// or PLAN.json without it is a user's and is not replaced.
const (
	mdMark   = "<!-- written by empties select"
	jsonMark = "{\n  \"written_by\": \"empties select\""
)

func writePlan(files *guard.Files, out string, plan *planfile.Plan) error {
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

// markdown is the plan as PLAN.md shows it.
func markdown(p *planfile.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s plan\n\n", map[string]string{planfile.Wide: "Wide arm", planfile.Control: "Control arm", planfile.PartC: "Part C", planfile.PartB: "Part B judge calls"}[p.Kind])
	fmt.Fprintf(&b, "From `%s` with manifest `%s`, seed %d. %d samples, %d model calls.\n\n", p.Data, p.Manifest, p.Seed, p.Size.Samples, p.Size.Calls)
	fmt.Fprintf(&b, "Estimated cost $%.2f (upper bound $%.2f); spent so far $%.2f of the $%.2f ceiling.\n\n",
		p.Cost.EstimateUSD, p.Cost.UpperBoundUSD, p.Cost.SpentUSD, p.Cost.CeilingUSD)
	if len(p.Cost.Unpriced) > 0 {
		fmt.Fprintf(&b, "No prices for: %s.\n\n", strings.Join(p.Cost.Unpriced, ", "))
	}
	fmt.Fprintf(&b, "Run it with `empties rerun PLAN.json --manifest %s` (resumable; `--dry-run` shows the commands and the cost).\n\n", p.Manifest)
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "Note: %s.\n\n", n)
	}
	for _, g := range p.Groups {
		if p.Kind == "partb" {
			fmt.Fprintf(&b, "## %s × %s, arm %s (judge %s)\n\n", g.Eval, g.Route, g.Metadata["empties_arm"], orNone(g.Judge))
			fmt.Fprintln(&b, "Each stored reply is replayed as the response (the model under test is not called) and graded by the eval's judge; rescore gives its needs_judge rows the verdict.")
			fmt.Fprintln(&b)
			fmt.Fprintln(&b, "| sample | epoch | class | original log |")
			fmt.Fprintln(&b, "|---|---|---|---|")
			for _, s := range g.Samples {
				fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", s.ID, s.Epoch, s.OriginalClass, s.OriginalLog)
			}
			fmt.Fprintln(&b)
			continue
		}
		if p.Kind == "partc" {
			fmt.Fprintf(&b, "## %s (judge %s)\n\n", g.Eval, orNone(g.Judge))
			fmt.Fprintln(&b, "Each form is replayed as the response for each sample, once per repeat (the model under test is not called), and graded by the eval's judge; the samples carry `empties_form`, `empties_sample_id` and `empties_repeat` in their metadata and the log `empties_part=C`.")
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
