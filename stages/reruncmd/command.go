// Package reruncmd runs a plan of `empties select` with the pinned inspect_ai
// (`empties rerun PLAN`): the wide and control re-runs with the route's model
// and settings, and the Part C and Part B replays graded by the eval's own
// judge, each group through eval_set in a log folder of its own, so a run
// stopped half-way resumes where it stopped. The budget is a gate: what was
// spent plus the upper bound of what the plan still has to run may not cross
// the manifest's ceiling unless --allow-over-budget says so, and what the run
// spent is priced from its logs with the cost table's SQL.
package reruncmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/numfmt"
	"empties/internal/rerun"
)

// Options configure a run of a plan: the rerun.Config its flags give.
type Options struct {
	rerun.Config
}

// OverBudgetFlag runs a plan over the ceiling; UnpricedFlag runs one with
// calls no route prices.
const (
	OverBudgetFlag = "allow-over-budget"
	UnpricedFlag   = "allow-unpriced"
)

// Command returns the `rerun` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:      "rerun",
		Usage:     "run a plan of empties select (wide, control, partc, partb) with inspect_ai, within the budget",
		ArgsUsage: "PLAN.json",
		Description: `Runs every group of a plan with the project's inspect_ai (eval_set), one log
folder per group under --log-dir (default: the plan's path without .json):

   wide, control   the eval's task with its original arguments and judges, the
                   route's model and the original run's generate config (the
                   wide arm's max_tokens), the planned sample ids and epochs
   partc           each planned sample once per non-answer form and repeat, the
                   form replayed as the response (the empties/replay solver; no
                   model under test is called), graded by the eval's judge
   partb           each stored reply that needs a judge, replayed the same way

Names in the plan (eval, route, task) are names, never paths: one with '/',
'..', a space or an absolute form is refused before anything runs (exit 2).

Resumable: a second run of the same plan runs only what is missing (a group
whose log is finished is skipped; an unfinished one is retried with its
finished samples kept). Every line counts a group's records the same way:
planned = in its logs + run now + left.

The budget is checked first: what the dataset's logs, this plan's logs and the
log folders of other plans beside them spent (every attempt's calls, each once,
priced with the manifest's prices by the cost table's SQL), plus the upper
bound of what the plan still has to run, against budget.ceiling_usd of the
manifest. Over it nothing runs without --allow-over-budget; with calls whose
model no route prices (shown as unpriced, never as $0) nothing runs without
--allow-unpriced.

One runner at a time: the log folder stays locked while its runner lives,
even if this empties is killed (the runner holds the lock too, and stops when
empties dies); a second rerun of the folder is refused, naming the runner's
pid. Ctrl-C once: no new group starts, the running group's samples in flight
are cancelled and its log written with what finished, and what is done and
what is left is printed (exit 130); Ctrl-C again: the runner is killed at once.

After the run, what its logs spent is priced the same way. Ingest the new logs
with the study's logs (empties run LOGS LOG_DIR ...): their eval metadata puts
them in their arm and part.

Examples:
   empties rerun plans/wide.json --manifest data/study.yaml --dry-run
   empties rerun plans/wide.json --manifest data/study.yaml
   empties rerun plans/partc.json --manifest data/study.yaml --log-dir logs/partc
   empties run logs/ plans/wide plans/partc --out data/study --manifest data/study.yaml`,
		Flags: append([]cli.Flag{
			cliutil.Optional(cliutil.NewDataFlag(""), "dataset `DIR` whose spend counts against the budget (default: the plan's)"),
			&cli.StringFlag{Name: "log-dir", Usage: "log folder `DIR` (default: PLAN without .json); new, empty, or one rerun wrote"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the commands and the cost, run nothing"},
			&cli.BoolFlag{Name: OverBudgetFlag, Usage: "run even if the plan may cross the manifest's budget ceiling"},
			&cli.BoolFlag{Name: UnpricedFlag, Usage: "run even though some calls have no price in the manifest (their cost is left out: simulated mockllm models)"},
			&cli.StringFlag{Name: "python", Usage: "Python `FILE` with inspect_ai and the empties package (default: $EMPTIES_PYTHON, ./.venv/bin/python, python3)"},
			&cli.StringFlag{Name: "harness", Usage: "Python `FILE` defining setup(group) and model(name, group, role), for simulated runs (the demo's mockllm models)"},
			&cli.StringSliceFlag{Name: "tag", Usage: "tag `TAG` on every log (repeatable)"},
			&cli.IntFlag{Name: "log-buffer", Usage: "`N` samples inspect_ai buffers before it writes them to the log (0: its own default)"},
		}, cliutil.ManifestFlags()...),
		Arguments: []cli.Argument{&cli.StringArg{Name: "plan"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Config: rerun.Config{Plan: c.StringArg("plan"), Data: c.String(cliutil.DataFlag),
				Manifest: c.String(cliutil.ManifestFlag), AllowPreregMismatch: c.Bool(cliutil.AllowPreregMismatchFlag),
				LogDir: c.String("log-dir"), DryRun: c.Bool("dry-run"), AllowOverBudget: c.Bool(OverBudgetFlag), AllowUnpriced: c.Bool(UnpricedFlag),
				Python: c.String("python"), Harness: c.String("harness"), Tags: c.StringSlice("tag"), LogBuffer: c.Int("log-buffer")}}, c.Root().Writer)
		},
	}
}

// Validate checks the options before any work; rerun.Load checks the
// files they name.
func (o Options) Validate() error {
	if o.Plan == "" {
		return cliutil.Usagef("rerun: name the plan to run: empties rerun PLAN.json --manifest FILE (write one with empties select)")
	}
	if o.Manifest == "" {
		return cliutil.Required("rerun", "--manifest FILE")
	}
	if o.LogBuffer < 0 {
		return cliutil.Usagef("rerun: --log-buffer %d: give a number of samples, 1 or more (0: inspect_ai's default)", o.LogBuffer)
	}
	return nil
}

// Run runs the plan.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	r, err := rerun.Load(opts.Config)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "rerun %s: %s, %s (sample × epoch) from %s; logs in %s\n", r.Plan.Kind, numfmt.Plural(int64(len(r.Groups)), "group", "groups"),
		numfmt.Plural(int64(r.Records), "record", "records"), r.Config.Plan, r.Root)
	if err := r.Assess(ctx); err != nil {
		return err
	}
	if r.FromPlan {
		fmt.Fprintf(w, "(no dataset at %s: the spend so far is what the plan recorded when select wrote it)\n", r.Config.Data)
	}
	r.Budget.Print(w)

	if opts.DryRun {
		if r.Busy != nil {
			fmt.Fprintf(w, "note: %v\n", r.Busy)
		}
		for _, g := range r.Groups {
			t := rerun.Count(g.Planned, r.Done[g.Index], 0)
			fmt.Fprintf(w, "[%d/%d] %s: %d planned, %d in its logs, %d to run\n  %s\n", g.Index, len(r.Groups), g.Label, t.Planned, t.InLogs, t.Left, rerun.Command(g))
		}
		if err := r.Refused(OverBudgetFlag, UnpricedFlag); err != nil {
			fmt.Fprintf(w, "dry run: a real run would be refused: %v\n", err)
		} else {
			fmt.Fprintln(w, "dry run: nothing was run")
		}
		return nil
	}
	if err := r.Refused(OverBudgetFlag, UnpricedFlag); err != nil {
		return fmt.Errorf("rerun: %w", err)
	}
	if len(r.Groups) == 0 {
		fmt.Fprintln(w, "the plan has nothing to run")
		return nil
	}
	if len(r.Todo) == 0 {
		fmt.Fprintf(w, "every group's log is finished (%s): nothing left to run\n", numfmt.Plural(int64(len(r.Groups)), "group", "groups"))
		return nil
	}
	if n := len(r.Groups) - len(r.Todo); n > 0 {
		fmt.Fprintf(w, "%d of %d groups have finished logs and are not run again\n", n, len(r.Groups))
	}

	out, err := r.Execute(ctx, w)
	if out == nil {
		return err
	}
	spent := fmt.Sprintf("$%.2f", out.Spent.USD)
	if out.Spent.Unpriced > 0 {
		spent += fmt.Sprintf(" + %d unpriced calls (%s)", out.Spent.Unpriced, strings.Join(out.Spent.UnpricedModels, ", "))
	}
	fmt.Fprintf(w, "spent: %s in the %d model calls of this plan's logs, every attempt's; the study: $%.2f of the $%.2f ceiling\n",
		spent, out.Spent.Calls, r.Budget.SpentDataUSD+r.Budget.SpentOtherUSD+out.Spent.USD, r.Budget.CeilingUSD)
	if out.Stopped {
		printLeft(w, r, out)
		fmt.Fprintf(w, "stopped: the logs keep what finished; run the same command again to go on\n")
		if err == nil { // the runner was stopped by a signal sent to it, not by a Ctrl-C here
			err = context.Canceled
		}
		return err
	}
	if err != nil {
		return err
	}
	if out.RunErr != nil || len(out.Failed) > 0 {
		printLeft(w, r, out)
	}
	if out.RunErr != nil {
		fmt.Fprintf(w, "the Python runner (%s) failed: %v\n%s\n", r.Python, out.RunErr, lastLines(out.Output, 30))
		return &cliutil.PartialError{Msg: fmt.Sprintf("rerun: %s: the runner failed; run the same command again to retry what is missing", r.Config.Plan)}
	}
	if len(out.Failed) > 0 {
		fmt.Fprintf(w, "%s\n", lastLines(out.Output, 30))
		return &cliutil.PartialError{Msg: fmt.Sprintf("rerun: %d of %d groups did not finish (%s); run the same command again to retry them", len(out.Failed), len(r.Todo), strings.Join(out.Failed, "; "))}
	}
	fmt.Fprintf(w, "next: ingest %s with the study's logs, e.g. empties run LOGS %s --out DATA --manifest %s\n", r.Root, r.Config.LogDir, r.Config.Manifest)
	return nil
}

// printLeft says, after a stop or a failure, what each group's logs hold
// and what is left, as the next run of the plan will find it: the logs, read
// again, counted as every line counts (rerun.Count).
func printLeft(w io.Writer, r *rerun.Run, out *rerun.Outcome) {
	var finished, started []string
	left, groupsLeft := 0, 0
	for _, g := range r.Groups {
		t := rerun.Count(g.Planned, r.Done[g.Index], out.After[g.Index]-r.Done[g.Index])
		switch {
		case t.Left == 0:
			finished = append(finished, fmt.Sprint(g.Index))
		default:
			left += t.Left
			groupsLeft++
			if t.RunNow > 0 || t.InLogs > 0 {
				started = append(started, fmt.Sprintf("[%d/%d] %s: %s", g.Index, len(r.Groups), g.Label, t))
			}
		}
	}
	fmt.Fprintf(w, "done: %d of %s finished; left: %d of %s in %s\n", len(finished), numfmt.Plural(int64(len(r.Groups)), "group", "groups"),
		left, numfmt.Plural(int64(r.Records), "record", "records"), numfmt.Plural(int64(groupsLeft), "group", "groups"))
	for _, s := range started {
		fmt.Fprintf(w, "  %s\n", s)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
