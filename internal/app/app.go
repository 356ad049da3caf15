// Package app assembles the empties command line: one root command with a
// subcommand per stage. The umbrella binary and the thin stage binaries under
// cmd/ all go through Main, so every exit code is decided in one place.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/stages/analyze"
	"empties/stages/check"
	"empties/stages/classify"
	"empties/stages/decide"
	"empties/stages/exposure"
	"empties/stages/ingest"
	"empties/stages/report"
	"empties/stages/rescore"
	"empties/stages/run"
	"empties/stages/sample"
	"empties/stages/schemacmd"
	"empties/stages/selectplan"
	"empties/stages/sqlcmd"
)

// Version is stamped by the Makefile (-ldflags "-X empties/internal/app.Version=...").
var Version = "dev"

// Commands returns the stage commands, in pipeline order.
func Commands() []*cli.Command {
	return []*cli.Command{
		ingest.Command(),
		classify.Command(),
		sample.Command(),
		rescore.Command(),
		selectplan.Command(),
		check.Command(),
		analyze.Command(),
		decide.Command(),
		report.Command(),
		sqlcmd.Command(),
		schemacmd.Command(),
		exposure.Command(),
		run.Command(),
	}
}

// Root builds the umbrella command.
func Root() *cli.Command {
	return &cli.Command{
		Name:    "empties",
		Usage:   "measure what \"empty\" model replies in Inspect AI logs really are",
		Version: Version,
		Description: `empties reads Inspect AI evaluation logs (.eval and .json, every format
version), finds the reply of the model under test in every sample, classifies
it, re-scores it under routing policies P0-P3, computes the pre-registered
measures in DuckDB SQL, applies decision rules D1-D4 and regenerates the
report. Every table is Parquet that DuckDB, pandas and polars can read.

Any folder of logs, no manifest needed (rates per task × model, examples):
   empties run logs/ --out out/explore

The study, stage by stage:
   empties ingest logs/ --out data/study
   empties rescore --data data/study --manifest data/study.yaml
   empties check --data data/study
   empties select wide --data data/study --manifest data/study.yaml --out plans/wide
   empties analyze --data data/study --manifest data/study.yaml
   empties decide --data data/study --manifest data/study.yaml
   empties report --data data/study --out report/

Ad hoc:
   empties sql "SELECT class, count(*) FROM replies GROUP BY ALL" --data data/study
   duckdb data/study/empties.duckdb`,
		Commands: Commands(),
	}
}

// Main runs cmd with args and returns the process exit code. Errors are
// printed once, here; stage code only returns them.
func Main(ctx context.Context, cmd *cli.Command, args []string, stdout, stderr io.Writer) int {
	cmd.Writer = stdout
	cmd.ErrWriter = stderr
	// urfave/cli v3 calls os.Exit inside Run for errors carrying an exit code
	// unless ExitErrHandler is set; that would skip deferred cleanup (DuckDB
	// checkpoints its WAL on Close). Handle every error below instead.
	cmd.ExitErrHandler = func(context.Context, *cli.Command, error) {}
	err := cmd.Run(ctx, args)
	if err == nil {
		return 0
	}
	var coder cli.ExitCoder
	if errors.As(err, &coder) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintf(stderr, "%s: %s\n", cmd.Name, msg)
		}
		return coder.ExitCode()
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "%s: interrupted\n", cmd.Name)
		return 130
	}
	fmt.Fprintf(stderr, "%s: %s\n", cmd.Name, err)
	var usage *cliutil.UsageError
	if errors.As(err, &usage) || strings.HasPrefix(err.Error(), "Required flag") || strings.HasPrefix(err.Error(), "flag provided but not defined") {
		return 2 // urfave/cli's own usage errors have no type to test
	}
	return 1
}

// RunMain is the body of every main: SIGINT/SIGTERM cancel the context, and
// the exit code comes from Main.
func RunMain(cmd *cli.Command) {
	// No heap profile is ever written, so the runtime need not sample
	// allocations (a stack walk every 512 KB: about 1% of ingest's time).
	runtime.MemProfileRate = 0
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, cmd, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Stage turns one stage command into a root command of its own, for the thin
// stage binaries under cmd/.
func Stage(c *cli.Command) *cli.Command {
	c.Name = "empties-" + c.Name
	c.Version = Version
	return c
}
