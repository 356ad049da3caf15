// Package analyzecmd is the `analyze` command: its flags and help. The measure
// suite it runs (the sql/ files, their contracts, the runner and the steps
// built in Go) is internal/measures.
package analyzecmd

import (
	"context"
	"io"
	"slices"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/measures"
)

// Options configure an analyze run: the measures.Config its flags give.
type Options struct {
	measures.Config
}

// The flags run shares with analyze.
const (
	ExamplesSeedFlag     = "examples-seed"
	ExamplesPerClassFlag = "examples-per-class"
)

// SharedFlags are --examples-seed and --examples-per-class, the draw of
// class_examples, which run takes too.
func SharedFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Uint64Flag{Name: ExamplesSeedFlag, Value: 1, Usage: "seed of the draw of class_examples"},
		&cli.IntFlag{Name: ExamplesPerClassFlag, Value: measures.DefaultExamplesPerClass, Usage: "real replies class_examples draws per class (at least 1)"},
	}
}

// Command returns the `analyze` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "analyze",
		Usage: "compute the pre-registered measures (class rates, D1-D4, transient share, tight vs default, cost) as Parquet tables",
		Description: `Runs every .sql file of the analysis (sql/*.sql, embedded) over the dataset's
tables and writes one Parquet table per output, each checked against its
contract (sql/marts/<output>.yml):

   class_rates             class shares per eval × route × arm, Wilson 95% intervals
   d1a_truncation          D1(a): truncated_empty share of samples, reasoning routes
   d1b_wide_outcomes       D1(b): what each truncation became on the wide re-run
   d1b_non_refusal         D1(b): share of wide re-runs that are not refusals
   d2_form_disagreement    D2: routes of one model refusing in different forms
   d3_headline_deltas      D3: P3 − P0 headline change, 1 pp and P0 half-width
   d4_judge_behaviour      D4: judges' pass rate and repeat disagreement
   d4_judge_verdicts       D4: judges' verdict distribution per form
   transient_share         control re-runs that became an answer
   tight_vs_default        default vs tight, paired by sample, bootstrap interval
   cost                    USD per part × route × arm × role × model
   judge_calls_saved       judge calls on replies P3 re-routes
   rates_by_stop_reason    exploratory: rates by stop reason
   rates_by_stop_category  exploratory: rates by stop_details category
   non_answer_rates        non-answer, reasoning_only and tool_only shares, Wilson
   truncation_by_max_tokens  stops at the limit per effective max_tokens and its source
   judge_calls_on_non_answers  judge calls that graded a non-answer
   reply_sources           how each reply was chosen (model event, sample.output)
   log_accounting          logs by status, and the files that could not be read
   class_examples          a few real replies per class (seeded), with inspect view links
   analyze_runs            one row per output: ok, empty, or skipped (input missing)

The sample is the unit: a sample with several replies in a cell counts once,
each reply carrying its share. An output whose input table is missing (no
re-runs yet, no Part C) is written empty and listed as skipped. Thresholds
are applied by decide, not here. The interval level and the bootstrap seed
and resamples come from the manifest, so the same data give the same numbers.

Without --manifest (exploring any folder of logs): eval is each log's task,
route its model and arm default; the outputs that need the manifest (D1-D4,
cost, tight vs default: anything reading rescore's tables) are written empty
and listed as skipped with "manifest" among their missing inputs; the others
(class_rates, the stop-reason rates, non_answer_rates, truncation_by_max_tokens,
judge_calls_on_non_answers, reply_sources, log_accounting, class_examples) run
with 95% Wilson intervals.

Examples:
   empties analyze --data out/explore
   empties analyze --data data/study --manifest data/study.yaml
   empties analyze --data out/explore --examples-seed 7 --examples-per-class 5
   empties sql "SELECT * FROM d1a_truncation WHERE share >= 0.01" --data data/study
   empties sql "SELECT output, status, missing_inputs FROM analyze_runs" --data data/study`,
		Flags: slices.Concat([]cli.Flag{cliutil.NewDataFlag("written by ingest and rescore")},
			SharedFlags(), cliutil.OptionalManifestFlags()),
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Config: measures.Config{Data: c.String(cliutil.DataFlag),
				Manifest: c.String(cliutil.ManifestFlag), AllowPreregMismatch: c.Bool(cliutil.AllowPreregMismatchFlag),
				ExamplesSeed: c.Uint64(ExamplesSeedFlag), ExamplesPerClass: c.Int(ExamplesPerClassFlag)}}, c.Root().Writer)
		},
	}
}

// Validate checks the options before any work.
func (o Options) Validate() error {
	if o.Data == "" {
		return cliutil.Required("analyze", "--data DIR")
	}
	if o.ExamplesPerClass < 1 {
		return cliutil.Usagef("analyze: --examples-per-class must be at least 1, got %d", o.ExamplesPerClass)
	}
	if o.AllowPreregMismatch && o.Manifest == "" {
		return cliutil.Usagef("analyze: --allow-prereg-mismatch needs --manifest: without a manifest there is no pre-registration to accept")
	}
	return nil
}

// Run analyzes the dataset and writes the outputs into it, printing a
// summary to w.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	return measures.Run(ctx, opts.Config, w)
}
