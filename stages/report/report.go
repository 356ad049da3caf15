// Package report regenerates the report from a dataset (`empties report`):
// a page that answers on its first screen how often replies come back
// empty, why and where (index.html, self-contained, and index.md, the same
// in Markdown), every table it draws on as CSV, Parquet and Markdown, and
// its charts as Vega-Lite specs. The same inputs give byte-identical
// outputs: rows are ordered, nothing carries a timestamp. The report
// computes no statistic of its own; it shows the tables the SQL and the
// decide stage wrote. Build is the page as a function of the dataset's
// tables, for `report` and for a server.
package report

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/duck"
	"empties/internal/guard"
	"empties/internal/store"
)

// Options configure a report.
type Options struct {
	Data  string
	Out   string
	Avoid []string // paths the report folder must keep clear of (run's LOGS)
}

// Command returns the `report` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "regenerate the report: one page (index.html, index.md), its tables as CSV and Parquet, its charts",
		Description: `Writes OUT/index.html, one self-contained page that opens with no network,
and OUT/index.md, the same page in Markdown. Its first screen answers the
question: of all samples, the share whose reply is a non-answer, split by
class, and beside it the share with no reply at all (error, no_choices), each
with its Wilson interval; one row per model (route); the task × model cells
with the most non-answers. Then what each class means (from the classifier's
vocabulary), charts (a task × model heat map of the non-answer share, the
class shares per cell), real examples of each class with the reply as the
model gave it and the prompt it answered (non-answers first), the rates per
cell, and every table the page draws on, sortable and filterable.

OUT/tables/<table>.csv, .parquet and .md hold each of those tables (every
column, full precision); OUT/plots/<chart>.vl.json each chart's Vega-Lite
spec with its data, which a notebook opens with Altair
(alt.Chart.from_dict). Tables that could not be computed are listed on one
line each with what they need. The same inputs give byte-identical files.

Without a manifest the task is the eval and the model the route. With a
manifest (a dataset rescore placed in a study) the page opens with the
decisions D1-D4 and H1-H4, then the same sections, and the study's charts.

Examples:
   empties report --data data/study --out report/
   empties report --data out/explore --out out/explore/report`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "data", Aliases: []string{"d"}, Usage: "dataset `DIR`", Required: true},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "report folder `DIR`: new, empty, or an earlier report (whose files it replaces); anything else is refused", Required: true},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Data: c.String("data"), Out: c.String("out")}, c.Root().Writer)
		},
	}
}

// published are the tables the report shows, in order, with a title. Any
// other analysis table found is added after them; the per-reply tables are
// left to SQL and notebooks.
var published = []struct{ name, title string }{
	{"decisions", "Decisions D1-D4 and hypotheses H1-H4"},
	{"d1a_truncation", "D1(a): truncated_empty share of samples, reasoning routes, default arm"},
	{"d1b_non_refusal", "D1(b): re-run truncations that became non-refusals"},
	{"d1b_wide_outcomes", "D1(b): what each re-run truncation became"},
	{"d2_form_disagreement", "D2: refusal forms that differ between routes of a model"},
	{"d3_headline_deltas", "D3: P3 - P0 headline deltas"},
	{"d4_judge_behaviour", "D4: judges on non-answers"},
	{"d4_judge_verdicts", "D4: verdict distribution per judge and form"},
	{"headlines", "Headline metrics under P0-P3 with bootstrap intervals"},
	{"p0_check", "P0 check: recomputed headline against the stored metric"},
	{"class_rates", "Class rates per eval × route × arm (Wilson intervals)"},
	{"transient_share", "Transient share: control re-runs that became an answer"},
	{"tight_vs_default", "HLE tight vs default, paired by sample"},
	{"cost", "Cost per route and part"},
	{"judge_calls_saved", "Judge calls saved by bypassing"},
	{"rates_by_stop_reason", "Exploratory: rates by stop reason"},
	{"rates_by_stop_category", "Exploratory: rates by stop_details category"},
	{"overview", "Headline: non-answers, no replies and answers per route and for all routes (Wilson intervals)"},
	{"overview_classes", "Headline by class: each class's share of the samples per route and for all routes"},
	{"non_answer_rates", "Exploration: non-answer, no-reply, reasoning_only and tool_only shares per eval × route (Wilson intervals)"},
	{"truncation_by_max_tokens", "Exploration: stops at the token limit per effective max_tokens and its source"},
	{"judge_calls_on_non_answers", "Exploration: judge calls that received a non-answer"},
	{"reply_sources", "Exploration: how the replies were chosen"},
	{"log_accounting", "Exploration: logs read by status, and files that could not be read"},
	{"class_examples", "Exploration: real examples of each class, with inspect view links"},
	{"analyze_runs", "What the last analyze run computed, and why a table is empty"},
	{"reruns", "Re-run pairing"},
	{"log_assignments", "Logs and their place in the study"},
	{"exposure", "Exposure search: inspect_evals evals exposed to the empty-reply problem"},
	{"ingest_errors", "Files that could not be ingested"},
}

// perReply are tables too large or too raw for the report.
var perReply = map[string]bool{"replies": true, "scores": true, "model_calls": true, "policy_scores": true,
	"judge_verdicts": true, "reply_outcomes": true, "judge_tests": true, "logs": true, "planned_reruns": true,
	"study_replies": true, "priced_calls": true, "tight_vs_default_samples": true}

// Run writes the report.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if err := store.CheckReadable("report", opts.Data); err != nil {
		return err
	}
	if !store.HasTable(opts.Data, "replies") {
		return cliutil.Usagef("report: %s has no tables; run the pipeline first (`empties run LOGS --out %s`, or ingest and analyze)", opts.Data, opts.Data)
	}
	// The report folder is checked before any work (new, empty, or an
	// earlier report; never a user's folder, the logs or a dataset) and
	// built in a temporary folder that Commit switches in.
	out, err := guard.OpenFolder(opts.Out, "report", guard.Rules{Avoid: opts.Avoid})
	if err != nil {
		return err
	}
	defer out.Close()
	db, present, err := duck.OpenDataset(ctx, opts.Data)
	if err != nil {
		return err
	}
	defer db.Close()
	sum, err := Build(ctx, db, present, out.Dir())
	if err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(w, "report: %d tables, %d charts in %s (open %s in a browser, or %s)\n", sum.Tables, sum.Charts, opts.Out,
		filepath.Join(opts.Out, "index.html"), filepath.Join(opts.Out, "index.md"))
	return nil
}
