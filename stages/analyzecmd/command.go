// Package analyzecmd is the `analyze` command: its flags and help. The measure
// suite it runs (the sql/ files, their contracts, the runner and the steps
// built in Go) is internal/measures.
package analyzecmd

import (
	"context"
	"io"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/measures"
)

// Options configure an analyze run.
type Options = measures.Options

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
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "data", Aliases: []string{"d"}, Usage: "dataset `DIR` written by ingest and rescore", Required: true},
			&cli.Uint64Flag{Name: "examples-seed", Value: 1, Usage: "seed of the draw of class_examples"},
			&cli.IntFlag{Name: "examples-per-class", Value: measures.DefaultExamplesPerClass, Usage: "real replies class_examples draws per class"},
		}, optionalManifest(cliutil.ManifestFlags(true))...),
		Action: func(ctx context.Context, c *cli.Command) error {
			if n := c.Int("examples-per-class"); n < 1 {
				return cliutil.Usagef("analyze: --examples-per-class must be at least 1, got %d", n)
			}
			return Run(ctx, Options{Data: c.String("data"), Manifest: c.String(cliutil.ManifestFlag), AllowPreregMismatch: c.Bool(cliutil.AllowPreregMismatchFlag),
				ExamplesSeed: c.Uint64("examples-seed"), ExamplesPerClass: int(c.Int("examples-per-class"))}, c.Root().Writer)
		},
	}
}

// optionalManifest makes --manifest optional: analyze runs the measures that
// need no manifest without one.
func optionalManifest(flags []cli.Flag) []cli.Flag {
	for _, f := range flags {
		if sf, ok := f.(*cli.StringFlag); ok && sf.Name == cliutil.ManifestFlag {
			sf.Required = false
			sf.Usage = "experiment manifest `FILE`; without one, the measures that need it are skipped"
		}
	}
	return flags
}

// Run analyzes the dataset and writes the outputs into it, printing a
// summary to w.
func Run(ctx context.Context, opts Options, w io.Writer) error { return measures.Run(ctx, opts, w) }
