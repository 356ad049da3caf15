// Package rescorecmd is the `empties rescore` command: its flags, help and
// summary. Placing logs in the study, the policies P0-P3, the headlines and
// the study's tables are internal/study's.
package rescorecmd

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/numfmt"
	"empties/internal/store"
	"empties/internal/study"
	"empties/internal/vocab"
	"empties/schema"
)

// Options configure a rescore run: the study.Config its flags give.
type Options struct {
	study.Config
}

// Command returns the `rescore` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "rescore",
		Usage: "re-score every reply under policies P0-P3 and recompute headline metrics",
		Description: `Maps every ingested log to an eval profile, route, arm and part (manifest),
then writes:

   log_assignments  where each log sits in the study, and how that was decided
   policy_scores    one row per sample × epoch × policy (P0 = the logged score)
   judge_verdicts   one row per judge call that produced a score
   headlines        each eval's headline metric per eval × route × arm × policy,
                    with a seeded bootstrap interval over samples
   p0_check         the P0 headline recomputed per log against the stored metric

Logs that match no profile keep their replies and classes and are listed.
No model is called: judge verdicts are reused from the logs, and a reply a
policy would send to a judge the run never called is counted (needs_judge)
until a Part B log (empties select partb, empties rerun) gives its verdict.

Examples:
   empties rescore --data data/study --manifest data/study.yaml
   empties check --data data/study
   empties sql "SELECT * FROM headlines WHERE eval = 'xstest_safe'" --data data/study`,
		Flags: append([]cli.Flag{cliutil.NewDataFlag("written by ingest")}, cliutil.ManifestFlags()...),
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Config: study.Config{Data: c.String(cliutil.DataFlag),
				Manifest: c.String(cliutil.ManifestFlag), AllowPreregMismatch: c.Bool(cliutil.AllowPreregMismatchFlag)}}, c.Root().Writer)
		},
	}
}

// Validate checks the options before any work.
func (o Options) Validate() error {
	if o.Data == "" {
		return cliutil.Required("rescore", "--data DIR")
	}
	if o.Manifest == "" {
		return cliutil.Required("rescore", "--manifest FILE")
	}
	return nil
}

// Run re-scores the dataset and prints the summary.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if err := store.RequireTables("rescore", opts.Data, "replies"); err != nil {
		return err
	}
	res, err := study.Rescore(ctx, opts.Config)
	if err != nil {
		return err
	}
	printSummary(w, res.Counts, res.Unmatched, res.Heads, res.Checks)
	printPairing(w, res.Reruns, res.Tests)
	return nil
}

func printPairing(w io.Writer, reruns []schema.Rerun, tests []schema.JudgeTest) {
	status := map[string]int{}
	for _, r := range reruns {
		status[r.Status]++
	}
	if len(reruns) > 0 {
		fmt.Fprintf(w, "re-runs: %d paired, %d without an original, %d planned but not re-run\n", status[vocab.RerunPaired], status[vocab.RerunNoOriginal], status[vocab.RerunNotRerun])
		for _, r := range reruns {
			if r.Status != vocab.RerunPaired {
				fmt.Fprintf(w, "  %s: %s %s %s sample %s epoch %d\n", r.Status, r.Arm, r.Eval, r.Route, r.SampleID, r.Epoch)
			}
		}
	}
	if len(tests) > 0 {
		fmt.Fprintf(w, "judge tests (Part C): %d verdicts\n", len(tests))
	}
}

func printSummary(w io.Writer, counts map[string]int, unmatched []string, heads []schema.Headline, checks []schema.P0Check) {
	total := 0
	for _, n := range counts {
		total += n
	}
	fmt.Fprintf(w, "re-scored %s of %s under %d policies\n", numfmt.Plural(int64(total), "reply", "replies"), numfmt.Plural(int64(len(counts)), "eval", "evals"), len(vocab.Policies))
	if len(unmatched) > 0 {
		fmt.Fprintf(w, "%s no eval profile (replies and classes kept; not re-scored):\n", numfmt.Plural(int64(len(unmatched)), "log matches", "logs match"))
		for _, p := range unmatched {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	status := map[string]int{}
	for _, c := range checks {
		status[c.Status]++
	}
	bad := status[vocab.P0Mismatch]
	fmt.Fprintf(w, "headlines: %d rows; P0 check: %d of %d logs reproduce the stored metric", len(heads), status[vocab.P0OK], len(checks))
	if bad > 0 {
		fmt.Fprintf(w, " (run `empties check` for the mismatches)")
	}
	fmt.Fprintln(w)
}
