// Package rerun runs a plan of `empties select` with the pinned inspect_ai
// (`empties rerun PLAN`): the wide and control re-runs with the route's model
// and settings, and the Part C and Part B replays graded by the eval's own
// judge, each group through eval_set in a log folder of its own, so a run
// stopped half-way resumes where it stopped. The budget is a gate: what was
// spent plus the upper bound of what the plan still has to run may not cross
// the manifest's ceiling unless --allow-over-budget says so, and what the run
// spent is priced from its logs with the cost table's SQL.
package rerun

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/guard"
	"empties/internal/manifest"
	"empties/internal/plan"
	"empties/internal/rerun"
	"empties/internal/store"
)

// Options configure a run of a plan.
type Options struct {
	Plan            string // PLAN.json
	Manifest        string
	Data            string // dataset whose spend counts; "" = the plan's
	LogDir          string // "" = PLAN without .json
	DryRun          bool
	AllowOverBudget bool
	Python          string   // "" = rerun.Python's choice
	Harness         string   // Python file with setup()/model() (simulated runs, tests)
	Tags            []string // on every log
	LogBuffer       int      // samples inspect_ai buffers before writing its log; 0 = its default
}

// OverBudgetFlag runs a plan over the ceiling.
const OverBudgetFlag = "allow-over-budget"

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

Resumable: a second run of the same plan runs only what is missing (a group
whose log is finished is skipped; an unfinished one is retried with its
finished samples kept). The budget is checked first: what the dataset's logs,
this plan's logs and the log folders of other plans beside them spent, plus the
upper bound of what the plan still has to run, against budget.ceiling_usd of
the manifest; over it nothing runs without --allow-over-budget. After the run, what its logs spent is priced with the
manifest's prices (the cost table's SQL). Ingest the new logs with the study's
logs (empties run LOGS LOG_DIR ...): their eval metadata puts them in their
arm and part.

Examples:
   empties rerun plans/wide.json --manifest data/study.yaml --dry-run
   empties rerun plans/wide.json --manifest data/study.yaml
   empties rerun plans/partc.json --manifest data/study.yaml --log-dir logs/partc
   empties run logs/ plans/wide plans/partc --out data/study --manifest data/study.yaml`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "data", Aliases: []string{"d"}, Usage: "dataset `DIR` whose spend counts against the budget (default: the plan's)"},
			&cli.StringFlag{Name: "log-dir", Usage: "log folder `DIR` (default: PLAN without .json); new, empty, or one rerun wrote"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the commands and the cost, run nothing"},
			&cli.BoolFlag{Name: OverBudgetFlag, Usage: "run even if the plan may cross the manifest's budget ceiling"},
			&cli.StringFlag{Name: "python", Usage: "Python `FILE` with inspect_ai and the empties package (default: $EMPTIES_PYTHON, ./.venv/bin/python, python3)"},
			&cli.StringFlag{Name: "harness", Usage: "Python `FILE` defining setup(group) and model(name, group, role), for simulated runs (the demo's mockllm models)"},
			&cli.StringSliceFlag{Name: "tag", Usage: "tag `TAG` on every log (repeatable)"},
			&cli.IntFlag{Name: "log-buffer", Usage: "`N` samples inspect_ai buffers before it writes them to the log (0: its own default)"},
		}, cliutil.ManifestFlags(false)...),
		Arguments: []cli.Argument{&cli.StringArg{Name: "plan"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Plan: c.StringArg("plan"), Manifest: c.String(cliutil.ManifestFlag), Data: c.String("data"),
				LogDir: c.String("log-dir"), DryRun: c.Bool("dry-run"), AllowOverBudget: c.Bool(OverBudgetFlag),
				Python: c.String("python"), Harness: c.String("harness"), Tags: c.StringSlice("tag"), LogBuffer: int(c.Int("log-buffer"))}, c.Root().Writer)
		},
	}
}

// Run runs the plan.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if opts.Plan == "" {
		return cliutil.Usagef("rerun: name the plan to run: empties rerun PLAN.json --manifest FILE (write one with empties select)")
	}
	// Every flag is checked before any work (the budget's accounting ingests
	// logs): the plan, the manifest, the numbers, the files named.
	p, err := plan.Read(opts.Plan)
	if err != nil {
		return fmt.Errorf("rerun: %w", err)
	}
	m, err := manifest.Load(opts.Manifest, manifest.Options{})
	if err != nil {
		return fmt.Errorf("rerun: %w", err)
	}
	if opts.LogBuffer < 0 {
		return cliutil.Usagef("rerun: --log-buffer %d: give a number of samples, 1 or more (0: inspect_ai's default)", opts.LogBuffer)
	}
	if opts.Data != "" { // named: it must be a dataset (the plan's own may have moved: then the plan's record of the spend is used)
		if err := store.CheckReadable("rerun", opts.Data); err != nil {
			return err
		}
	}
	python := rerun.Python(opts.Python)
	if !opts.DryRun {
		if _, err := exec.LookPath(python); err != nil {
			return cliutil.Usagef("rerun: Python %s: no such program (or not executable); name one with inspect_ai and the empties package with --python or $EMPTIES_PYTHON (make pypkg installs it into .venv)", python)
		}
	}
	if opts.LogDir == "" {
		opts.LogDir = strings.TrimSuffix(opts.Plan, ".json")
		if opts.LogDir == opts.Plan {
			return cliutil.Usagef("rerun: %s does not end in .json; give the log folder with --log-dir", opts.Plan)
		}
	}
	if opts.Data == "" {
		opts.Data = p.Data
	}
	var harness string
	if opts.Harness != "" {
		if harness, err = filepath.Abs(opts.Harness); err != nil {
			return err
		}
		if st, err := os.Stat(harness); err != nil || st.IsDir() {
			return cliutil.Usagef("rerun: --harness %s: no such file; name a Python file defining setup(group) and model(name, group, role)", opts.Harness)
		}
	}
	rules := guard.Rules{Avoid: []string{opts.Plan, opts.Harness}}
	root, _, err := guard.CheckLogFolder(opts.LogDir, "rerun", rules)
	if err != nil {
		return err
	}
	groups := rerun.Build(p, root, opts.Tags)
	records := 0
	for _, g := range groups {
		records += g.Planned
	}
	fmt.Fprintf(w, "rerun %s: %d groups, %d records (sample × epoch) from %s; logs in %s\n", p.Kind, len(groups), records, opts.Plan, root)

	// the budget: what was spent (the dataset's logs, this plan's, other
	// plans' log folders beside it that the dataset does not hold yet) and
	// what the plan still has to run
	b := rerun.Budget{CeilingUSD: m.Budget.CeilingUSD, Unpriced: p.Cost.Unpriced}
	others := rerun.SiblingLogFolders(root)
	before, err := rerun.Account(ctx, append([]string{root}, others...), m)
	if err != nil {
		return err
	}
	b.SpentLogsUSD = before.In(root).USD
	for _, o := range others {
		b.SpentOtherUSD += before.In(o).USD
	}
	done := map[int]int{}
	var todo []rerun.Group // the groups whose logs are not finished
	for _, g := range groups {
		st := before.In(g.LogDir)
		done[g.Index] = st.Records
		b.Remaining(g, st.Records)
		if !st.Finished || st.Records < g.Planned {
			todo = append(todo, g)
		}
	}
	spentData, fromPlan, err := rerun.DatasetSpend(ctx, opts.Data, append([]string{root}, others...), m)
	if err != nil {
		return err
	}
	b.SpentDataUSD = spentData
	if fromPlan {
		b.SpentDataUSD = p.Cost.SpentUSD
		fmt.Fprintf(w, "(no dataset at %s: the spend so far is what the plan recorded when select wrote it)\n", opts.Data)
	}
	b.Print(w)

	if opts.DryRun {
		for _, g := range groups {
			fmt.Fprintf(w, "[%d/%d] %s: %d records, %d already in its logs\n  %s\n", g.Index, len(groups), g.Label, g.Planned, min(done[g.Index], g.Planned), rerun.Command(g))
		}
		if b.Over() && !opts.AllowOverBudget {
			fmt.Fprintf(w, "dry run: a real run would be refused: %v\n", b.OverError(OverBudgetFlag))
		} else {
			fmt.Fprintln(w, "dry run: nothing was run")
		}
		return nil
	}
	if b.Over() && !opts.AllowOverBudget {
		return fmt.Errorf("rerun: %w", b.OverError(OverBudgetFlag))
	}
	if len(groups) == 0 {
		fmt.Fprintln(w, "the plan has nothing to run")
		return nil
	}
	if len(todo) == 0 {
		fmt.Fprintf(w, "every group's log is finished (%d groups): nothing left to run\n", len(groups))
		return nil
	}
	if n := len(groups) - len(todo); n > 0 {
		fmt.Fprintf(w, "%d of %d groups have finished logs and are not run again\n", n, len(groups))
	}

	folder, err := guard.OpenLogFolder(opts.LogDir, "rerun", "inspect_ai eval_set (python -m empties rerun)", rules)
	if err != nil {
		return err
	}
	defer folder.Close()
	spec := rerun.Spec{Format: rerun.SpecFormat, Harness: harness, Groups: todo}
	if opts.LogBuffer > 0 {
		spec.LogBuffer = &opts.LogBuffer
	}
	specPath, cleanup, err := writeSpec(spec)
	if err != nil {
		return err
	}
	defer cleanup()
	progress := &rerun.Progress{W: w, Groups: groups, Done: done}
	output, runErr := rerun.RunPython(ctx, python, specPath, os.Environ(), progress.Event)
	if ctx.Err() != nil {
		fmt.Fprintf(w, "stopped: the logs keep what finished; run the same command again to go on\n")
		return ctx.Err()
	}

	after, err := rerun.Account(ctx, []string{root}, m)
	if err != nil {
		return err
	}
	mine := after.In(root)
	fmt.Fprintf(w, "spent: $%.2f in the %d model calls of this plan's logs (%d of them unpriced); the study: $%.2f of the $%.2f ceiling\n",
		mine.USD, mine.Calls, mine.Unpriced, b.SpentDataUSD+b.SpentOtherUSD+mine.USD, b.CeilingUSD)
	if runErr != nil {
		fmt.Fprintf(w, "the Python runner (%s) failed: %v\n%s\n", python, runErr, lastLines(output, 30))
		return &cliutil.PartialError{Msg: fmt.Sprintf("rerun: %s: the runner failed; run the same command again to retry what is missing", opts.Plan)}
	}
	if len(progress.Failed) > 0 {
		fmt.Fprintf(w, "%s\n", lastLines(output, 30))
		return &cliutil.PartialError{Msg: fmt.Sprintf("rerun: %d of %d groups did not finish (%s); run the same command again to retry them", len(progress.Failed), len(todo), strings.Join(progress.Failed, "; "))}
	}
	fmt.Fprintf(w, "next: ingest %s with the study's logs, e.g. empties run LOGS %s --out DATA --manifest %s\n", root, opts.LogDir, opts.Manifest)
	return nil
}

// writeSpec writes the spec to a scratch file outside every output: spec.json
// in a temporary folder of its own (guard.TempDir), which cleanup removes.
func writeSpec(spec rerun.Spec) (string, func(), error) {
	tmp, err := guard.TempDir(os.TempDir(), "empties-rerun-spec.")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { tmp.Close() }
	p := filepath.Join(tmp.Path, "spec.json")
	f, err := guard.Create(p)
	if err != nil {
		cleanup()
		return "", nil, err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", " ")
	if err := enc.Encode(spec); err != nil {
		f.Close()
		cleanup()
		return "", nil, err
	}
	if err := f.Close(); err != nil {
		cleanup()
		return "", nil, err
	}
	return p, cleanup, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
