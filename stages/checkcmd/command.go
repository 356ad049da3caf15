// Package checkcmd is the `empties check` command: it verifies a dataset's
// contracts and prints what failed: every P0 headline recomputed from the
// per-sample rows equals the metric inspect_ai stored in its log
// (p0_check), the tables keep their invariants (internal/check: the files of
// sql/checks/ and the vocabulary's), and analyze's outputs their contracts.
package checkcmd

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/urfave/cli/v3"

	"empties/internal/check"
	"empties/internal/cliutil"
	"empties/internal/measures"
	"empties/internal/store"
	"empties/internal/vocab"
	"empties/schema"
)

// Options configure a check.
type Options struct {
	Data string
}

// Command returns the `check` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "verify a dataset: P0 reproduces every log's stored metric; table invariants hold",
		Description: `Lists every log whose P0 headline, recomputed from the per-sample rows with
the eval profile's formula, differs from the metric inspect_ai stored in the log
(both numbers shown), and every broken invariant: one reply per sample ×
epoch, four policy rows per reply, shares and keys as declared. Exits 1 if
anything fails.

Examples:
   empties check --data data/study`,
		Flags: []cli.Flag{cliutil.NewDataFlag("")},
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Data: c.String(cliutil.DataFlag)}, c.Root().Writer)
		},
	}
}

// Validate checks the options before any work.
func (o Options) Validate() error {
	if o.Data == "" {
		return cliutil.Required("check", "--data DIR")
	}
	return nil
}

// Run checks the dataset and prints what failed.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if err := store.RequireTables("check", opts.Data, "replies"); err != nil {
		return err
	}
	// Every read below is of one generation, resolved once.
	if cur, err := store.Current(opts.Data); err == nil && cur != "" {
		opts.Data = cur
	}
	failures := 0
	if store.HasTable(opts.Data, "p0_check") {
		n, bad, unchecked := 0, 0, 0
		err := store.Scan(opts.Data, "p0_check", func(c *schema.P0Check) error {
			n++
			if c.Status == vocab.P0Unchecked {
				unchecked++
				fmt.Fprintf(w, "P0 unchecked: %s (%s): %s\n", c.Path, c.Eval, c.Detail)
			}
			if !c.OK {
				bad++
				fmt.Fprintf(w, "P0 mismatch: %s (%s, %s): stored %s, recomputed %s: %s\n", c.Path, c.Eval, c.Metric, num(c.Stored), num(c.Recomputed), c.Detail)
			}
			return nil
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "P0 check: %d of %d logs reproduce the stored metric, %d mismatch, %d have none stored\n", n-bad-unchecked, n, bad, unchecked)
		failures += bad
	} else {
		fmt.Fprintln(w, "P0 check: not run (no p0_check table; run `empties rescore` first)")
	}
	broken, err := check.Invariants(ctx, opts.Data)
	if err != nil {
		return err
	}
	for _, b := range broken {
		if b.Query == "" {
			fmt.Fprintf(w, "invariant broken: %s\n", b.Invariant)
			continue
		}
		fmt.Fprintf(w, "invariant broken: %s (%d rows; query: %s)\n", b.Invariant, b.Rows, b.Query)
	}
	failures += len(broken)
	if store.HasTable(opts.Data, "analyze_runs") {
		broken, _, err := measures.CheckOutputs(ctx, opts.Data)
		if err != nil {
			return err
		}
		for _, b := range broken {
			fmt.Fprintf(w, "analysis contract broken: %s\n", b)
		}
		failures += len(broken)
	}
	if failures > 0 {
		return &cliutil.PartialError{Msg: fmt.Sprintf("%d checks failed", failures)}
	}
	fmt.Fprintln(w, "all checks passed")
	return nil
}

func num(p *float64) string {
	if p == nil || math.IsNaN(*p) {
		return "NaN"
	}
	return fmt.Sprintf("%.10g", *p)
}
