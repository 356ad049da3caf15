// Package exposure is the static scan of inspect_evals for evals exposed to
// the empty-reply problem (pre-registration section 4, "Exposure search";
// issue 7). It parses every Python file of the package with tree-sitter and
// reports, per eval, each of four criteria it meets, with file, line and
// code:
//
//  1. empty_check: it calls preset_score_on_no_response (or another helper
//     that tests the completion), or tests the completion itself:
//     `not state.output.completion.strip()`, `completion == ""`,
//     `len(text) == 0`, `if state.output.completion:`, `output.empty`. A
//     truthiness test of the ModelOutput itself (`if not state.output`) is
//     reported too, as a check that never fires.
//  2. unguarded_judge: a judge — model_graded_qa, model_graded_fact, or
//     `<model>.generate(...)` on a model from get_model reached from a
//     scorer — that some path reaches with no test of the completion (or of
//     the model's stop_reason or refusal flag) before it. See guard.go for
//     what ends a path guarded.
//  3. max_tokens: every `max_tokens=` keyword, its value resolved through
//     constants, parameter defaults and imported constants, and which model
//     it configures.
//  4. refusal_signal: reads of stop_reason, stop_details or a refusal flag,
//     and the fail_on_refusal and retry_refusals keywords.
//
// An eval is a top-level folder of the package that defines a @task (so the
// tasks of cyberseceval_4/mitre/ and cyberseceval_4/mitre_frr/ are one eval,
// cyberseceval_4). Modules outside eval folders (utils/, the package root)
// are helpers: their tests and judges are reported at the eval's call into
// them.
//
// Limits of the resolution, by design:
//   - Names resolve within a module (nested defs, module defs, self.method)
//     and through imports of the package's own modules by name or as a
//     module (`from inspect_evals.utils.scorers import f`, `from . import
//     m; m.f`), re-exports in __init__ files included. Not followed: methods
//     called on instances (`judge.check_refusal(...)`, as in AgentHarm),
//     getattr, registries (scorer specs in YAML, registry_info) and library
//     code (inspect_ai itself). A scorer found only through the registry
//     counts as entered by the framework, unguarded.
//   - The completion is recognised as state.output.completion or
//     .message.text/.content of a TaskState's output (a name `state` or a
//     parameter annotated TaskState/AgentState) and values derived from it
//     by assignment, string methods, slicing and `or ""`; values are traced
//     through assignments in enclosing scopes, parameters (with the origins
//     their callers pass, one level up) and self.<attr>, not through
//     containers, loops or returns of arbitrary functions. Text taken from
//     state.messages is not recognised.
//   - A judge is model_graded_qa/model_graded_fact anywhere, or generate on
//     a Model on a path that runs through a scorer; a judge called from a
//     solver (AIR-Bench's annotate) is not counted.
//   - A guard is a test in a condition that decides whether the judge call
//     runs (see controls); which branch of the test leads to the judge is not
//     checked. A read of the model's stop_reason or refusal flag counts as a
//     guard (criterion 2 says "emptiness or refusal check"), although it does
//     not catch an empty text with stop_reason "stop".
//   - max_tokens set in YAML run configs, in dict literals or through
//     GenerateConfig(**config) is not seen; which model a max_tokens
//     configures is read from the calls around it, and said to be unclear
//     when an unknown call stands in between.
package exposure

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
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "write results to `DIR`/exposure/", Required: true},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() != 1 {
				return cliutil.Usagef("exposure: give one PATH (an inspect_evals source tree or package folder), got %d arguments", c.Args().Len())
			}
			opts := Options{Path: c.Args().First(), Out: c.String("out")}
			return Run(ctx, opts, c.Root().Writer)
		},
	}
}

// Run scans opts.Path and writes the tables under opts.Out/exposure/.
func Run(ctx context.Context, opts Options, stdout io.Writer) error {
	if opts.Path == "" {
		return cliutil.Usagef("exposure: PATH is required")
	}
	if opts.Out == "" {
		return cliutil.Usagef("exposure: --out DIR is required")
	}
	// The dataset may not be, hold or lie inside the scanned tree: checked
	// before the scan.
	if _, err := guard.CheckDataset(opts.Out, guard.Rules{Avoid: []string{opts.Path}}); err != nil {
		return err
	}
	res, err := scanPath(ctx, opts.Path)
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
	if err := writeParquet(filepath.Join(dir, "exposure.parquet"), res.Findings); err != nil {
		return err
	}
	if err := writeMarkdown(filepath.Join(dir, "exposure.md"), res); err != nil {
		return err
	}
	if err := ds.Commit(); err != nil {
		return err
	}
	return summary(stdout, res, filepath.Join(ds.Dir, store.CurrentLink, "exposure"))
}
