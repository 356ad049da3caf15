// Package decidecmd is the `empties decide` command: its flags, help and
// summary. The rules and hypotheses, and the decisions table they write, are
// internal/decide's.
package decidecmd

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/decide"
	"empties/internal/store"
	"empties/schema"
)

// Options configure decide: the decide.Config its flags give.
type Options struct {
	decide.Config
}

// Command returns the `decide` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "decide",
		Usage: "apply decision rules D1-D4 and hypotheses H1-H4 with the manifest's thresholds",
		Description: `Reads the analysis tables (run ` + "`empties analyze`" + ` first) and writes the decisions
table: per rule the verdict, the pre-registration's recommendation for it, the
deciding number, the thresholds (from the manifest, never from code) and the
cells behind it. Rules whose inputs are missing (no wide arm yet, no Part C
logs) say "not enough data".

Examples:
   empties decide --data data/study --manifest data/study.yaml
   empties sql "SELECT rule, verdict, recommendation FROM decisions" --data data/study`,
		Flags: append([]cli.Flag{cliutil.NewDataFlag("written by analyze")}, cliutil.ManifestFlags()...),
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Config: decide.Config{Data: c.String(cliutil.DataFlag),
				Manifest: c.String(cliutil.ManifestFlag), AllowPreregMismatch: c.Bool(cliutil.AllowPreregMismatchFlag)}}, c.Root().Writer)
		},
	}
}

// Validate checks the options before any work.
func (o Options) Validate() error {
	if o.Data == "" {
		return cliutil.Required("decide", "--data DIR")
	}
	if o.Manifest == "" {
		return cliutil.Required("decide", "--manifest FILE")
	}
	return nil
}

// Run decides and prints the summary.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if err := store.RequireTables("decide", opts.Data, "replies"); err != nil {
		return err
	}
	rows, err := decide.Decide(ctx, opts.Config)
	if err != nil {
		return err
	}
	Print(w, rows)
	return nil
}

// Print writes the decision summary.
func Print(w io.Writer, rows []schema.Decision) {
	fmt.Fprintln(w, "decisions:")
	for _, r := range rows {
		v := ""
		if r.Value != nil {
			v = fmt.Sprintf(" (%.4g)", *r.Value)
		}
		fmt.Fprintf(w, "  %-10s %-16s%s  %s\n", r.Rule, r.Verdict, v, r.Recommendation)
	}
}
