// Package exposurecmd is the `empties exposure` command: its flags, help and
// summary. The static scan of inspect_evals (four criteria of the
// pre-registration's exposure search) is internal/exposure's.
package exposurecmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/duck"
	"empties/internal/exposure"
	"empties/internal/guard"
	"empties/internal/store"
	"empties/schema"
)

// Options configures a scan.
type Options struct {
	Path string // an inspect_evals source tree or an installed inspect_evals package folder
	Out  string // output folder; the scan writes Out/exposure/exposure.{parquet,md}
}

// Command returns the `exposure` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:      "exposure",
		Usage:     "list the inspect_evals evals exposed to the empty-reply problem (static scan of the Python source)",
		ArgsUsage: "PATH",
		Description: `Parses every Python file of an inspect_evals source tree or installed package
with tree-sitter and reports, per eval (a package folder with a @task), each
criterion of the pre-registration's exposure search it meets:

   1 empty_check      uses preset_score_on_no_response, or tests the completion
                      for emptiness itself
   2 unguarded_judge  calls a judge (model_graded_qa, model_graded_fact, or
                      get_model(...).generate in a scorer) with no emptiness or
                      refusal check on the path to it
   3 max_tokens       sets max_tokens (with the value, and the model it is for)
   4 refusal_signal   reads stop_reason or a refusal flag, sets fail_on_refusal,
                      or uses react(retry_refusals=...)

PATH is a source tree (holding src/inspect_evals/), a folder holding an
inspect_evals package (site-packages), or the package folder itself. No logs
are needed.

Writes DIR/current/exposure/exposure.parquet (one row per eval × criterion × file ×
line) and DIR/current/exposure/exposure.md (the same, grouped by eval), and prints how
many evals meet each criterion.

Examples:
   empties exposure .venv/lib/python3.11/site-packages/inspect_evals --out data/study
   empties exposure ~/src/inspect_evals --out data/exposure-main
   duckdb -c "SELECT criterion_name, count(DISTINCT eval) FROM 'data/study/current/exposure/exposure.parquet' GROUP BY ALL"`,
		Flags: []cli.Flag{cliutil.NewOutFlag("dataset `DIR` to write the exposure table into")},
		Action: func(ctx context.Context, c *cli.Command) error {
			// the arguments' count, which Options cannot hold, is checked here
			if c.Args().Len() != 1 {
				return cliutil.Usagef("exposure: give one PATH (an inspect_evals source tree or package folder), got %d arguments", c.Args().Len())
			}
			return Run(ctx, Options{Path: c.Args().First(), Out: c.String(cliutil.OutFlag)}, c.Root().Writer)
		},
	}
}

// Validate checks the options before any work.
func (o Options) Validate() error {
	if o.Path == "" {
		return cliutil.Required("exposure", "PATH")
	}
	if o.Out == "" {
		return cliutil.Required("exposure", "--out DIR")
	}
	return nil
}

// Run scans opts.Path and writes the tables under opts.Out/exposure/.
func Run(ctx context.Context, opts Options, stdout io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	// The dataset may not be, hold or lie inside the scanned tree: checked
	// before the scan.
	if _, err := guard.CheckDataset(opts.Out, guard.Rules{Avoid: []string{opts.Path}}); err != nil {
		return err
	}
	res, err := exposure.Scan(ctx, opts.Path)
	if err != nil {
		return err
	}
	// The exposure table (and its Markdown beside it) is one table of the
	// dataset's next generation, switched in with the others kept.
	ds, err := store.Create(store.Stage{Name: schema.StageExposure, Views: duck.ViewFile}, opts.Out, opts.Path)
	if err != nil {
		return err
	}
	defer ds.Close()
	dir, err := ds.TableDir("exposure")
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if err := exposure.Write(dir, res); err != nil {
		return err
	}
	if err := ds.Commit(); err != nil {
		return err
	}
	return summary(stdout, res, filepath.Join(ds.Dir, store.CurrentLink, "exposure"))
}

// summary is what Run prints: evals scanned and evals per criterion.
func summary(w io.Writer, res *exposure.Result, dir string) error {
	by := exposure.EvalsBy(res.Findings)
	var b bytes.Buffer
	fmt.Fprintf(&b, "exposure: scanned %d evals (%d Python files) under %s\n", len(res.Evals), res.Files, res.Root)
	for _, c := range exposure.Criteria {
		fmt.Fprintf(&b, "  %d %-16s %3d evals\n", c.Num, c.Name, len(by[c.Num]))
	}
	if len(res.BadSyntax) > 0 {
		fmt.Fprintf(&b, "  %d files parsed with syntax-error recovery: %s\n", len(res.BadSyntax), strings.Join(res.BadSyntax, ", "))
	}
	fmt.Fprintf(&b, "wrote %d findings to %s and %s\n", len(res.Findings),
		filepath.Join(dir, "exposure.parquet"), filepath.Join(dir, "exposure.md"))
	_, err := w.Write(b.Bytes())
	return err
}
