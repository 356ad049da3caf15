// Package runcmd is the whole pipeline in one command (`empties run`): ingest,
// then, with a manifest, rescore and check, then analyze, the exposure scan
// when an inspect_evals folder is given, decide with a manifest, and the
// report. Each stage is the stage package's own Run, called in order; the
// first that fails stops the run, named in the error.
package runcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/decide"
	"empties/internal/guard"
	"empties/internal/ingest"
	"empties/internal/measures"
	"empties/internal/study"
	"empties/stages/analyzecmd"
	"empties/stages/checkcmd"
	"empties/stages/decidecmd"
	"empties/stages/exposurecmd"
	"empties/stages/ingestcmd"
	"empties/stages/reportcmd"
	"empties/stages/rescorecmd"
)

// Options configure a run.
type Options struct {
	Logs                []string // files and folders of logs
	Out                 string   // dataset directory
	Manifest            string   // "" = explore: only the stages that need no manifest
	AllowPreregMismatch bool
	Report              string // report folder; "" = Out/report
	InspectEvals        string // inspect_evals source or package folder for the exposure scan; "" = no scan
	Progress            string // ingest's progress display
	AllAttempts         bool   // ingest counts every file, superseded attempts included
	ExamplesSeed        uint64
	ExamplesPerClass    int // at least 1 (the flag's default: measures.DefaultExamplesPerClass)
}

// Command returns the `run` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run the whole pipeline on folders of logs and write the report (no manifest needed)",
		Description: `Runs every stage in order over LOGS (.eval and .json files, folders searched
recursively) into the dataset DIR, and ends by printing where the report is:

   ingest     read and classify every reply               always
   rescore    P0-P3, headlines, study tables              with --manifest
   check      P0 reproduces every stored metric           with --manifest
   analyze    the measures (sql/*.sql)                    always; without a manifest
                                                          only those that need none
   exposure   static scan of inspect_evals                with --inspect-evals
   decide     D1-D4, H1-H4                                with --manifest
   report     index.md and index.html                     always

Without a manifest this is the exploration of any folder of logs: class and
non-answer rates per task × model (the route is the log's model) with Wilson
intervals, rates by stop reason, truncation against the effective max_tokens,
judges that received a non-answer, how each reply was chosen, the logs that
could not be read, and a few real replies of each class with the inspect view
address that opens each. With a manifest it is the study.

The report goes to DIR/report unless --report is given. The first stage that
fails stops the run and is named. Files ingest cannot read do not stop it:
they are listed (and in ingest_errors), the other stages run on the rest, and
the exit code is 1 at the end, as for ingest alone.

Examples:
   empties run logs/ --out out/explore
   empties run logs/ --out out/explore --report out/explore-report
   empties run data/demo/logs --out out/demo --manifest data/study.yaml --inspect-evals .venv/lib/python3.11/site-packages/inspect_evals`,
		ArgsUsage: "LOGS...",
		Flags: slices.Concat([]cli.Flag{
			cliutil.NewOutFlag("dataset `DIR` to write"),
			&cli.StringFlag{Name: "report", Usage: "report folder `DIR`: new, empty, or an earlier report (default: OUT/report)"},
			&cli.StringFlag{Name: "inspect-evals", Usage: "inspect_evals source tree or package `DIR` to scan for exposure (default: no scan)"},
		}, ingestcmd.SharedFlags(), analyzecmd.SharedFlags(), cliutil.OptionalManifestFlags()),
		Arguments: []cli.Argument{&cli.StringArgs{Name: "logs", Min: 0, Max: -1}},
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Logs: c.StringArgs("logs"), Out: c.String(cliutil.OutFlag), Manifest: c.String(cliutil.ManifestFlag),
				AllowPreregMismatch: c.Bool(cliutil.AllowPreregMismatchFlag), Report: c.String("report"),
				InspectEvals: c.String("inspect-evals"), Progress: c.String(ingestcmd.ProgressFlag), AllAttempts: c.Bool(ingestcmd.AllAttemptsFlag),
				ExamplesSeed: c.Uint64(analyzecmd.ExamplesSeedFlag), ExamplesPerClass: c.Int(analyzecmd.ExamplesPerClassFlag)},
				c.Root().Writer, c.Root().ErrWriter)
		},
	}
}

// Stage is one step of the run: its options, which the run checks before
// the first stage starts, and its stage's Run over them.
type Stage struct {
	Name    string
	Options interface{ Validate() error }
	run     func(ctx context.Context, stdout, stderr io.Writer) error
}

// Stages lists the stages a run with these options goes through, in order.
func Stages(opts Options) []Stage {
	manifest := opts.Manifest != ""
	var st []Stage
	add := func(name string, when bool, o interface{ Validate() error }, fn func(ctx context.Context, stdout, stderr io.Writer) error) {
		if when {
			st = append(st, Stage{name, o, fn})
		}
	}
	ing := ingestcmd.Options{Config: ingest.Config{Paths: opts.Logs, Out: opts.Out, AllAttempts: opts.AllAttempts}, ProgressMode: opts.Progress}
	add("ingest", true, ing, func(ctx context.Context, stdout, stderr io.Writer) error {
		return ingestcmd.Run(ctx, ing, stdout, stderr)
	})
	resc := rescorecmd.Options{Config: study.Config{Data: opts.Out, Manifest: opts.Manifest, AllowPreregMismatch: opts.AllowPreregMismatch}}
	add("rescore", manifest, resc, func(ctx context.Context, stdout, _ io.Writer) error {
		return rescorecmd.Run(ctx, resc, stdout)
	})
	chk := checkcmd.Options{Data: opts.Out}
	add("check", manifest, chk, func(ctx context.Context, stdout, _ io.Writer) error {
		return checkcmd.Run(ctx, chk, stdout)
	})
	an := analyzecmd.Options{Config: measures.Config{Data: opts.Out, Manifest: opts.Manifest, AllowPreregMismatch: opts.AllowPreregMismatch,
		ExamplesSeed: opts.ExamplesSeed, ExamplesPerClass: opts.ExamplesPerClass}}
	add("analyze", true, an, func(ctx context.Context, stdout, _ io.Writer) error {
		return analyzecmd.Run(ctx, an, stdout)
	})
	exp := exposurecmd.Options{Path: opts.InspectEvals, Out: opts.Out}
	add("exposure", opts.InspectEvals != "", exp, func(ctx context.Context, stdout, _ io.Writer) error {
		return exposurecmd.Run(ctx, exp, stdout)
	})
	dec := decidecmd.Options{Config: decide.Config{Data: opts.Out, Manifest: opts.Manifest, AllowPreregMismatch: opts.AllowPreregMismatch}}
	add("decide", manifest, dec, func(ctx context.Context, stdout, _ io.Writer) error {
		return decidecmd.Run(ctx, dec, stdout)
	})
	rep := reportcmd.Options{Data: opts.Out, Out: ReportDir(opts), Avoid: opts.Logs}
	add("report", true, rep, func(ctx context.Context, stdout, _ io.Writer) error {
		return reportcmd.Run(ctx, rep, stdout)
	})
	return st
}

// Validate checks the options before any work: run's own, then each of its
// stages' options (a stage's mistake is found before the first stage
// starts, not when the run reaches it).
func (o Options) Validate() error {
	if len(o.Logs) == 0 {
		return cliutil.Usagef("run: give one or more LOGS (files or folders), e.g. empties run logs/ --out out/explore")
	}
	if err := mustExist("--manifest", o.Manifest, false); err != nil {
		return err
	}
	if err := mustExist("--inspect-evals", o.InspectEvals, true); err != nil {
		return err
	}
	for _, st := range Stages(o) {
		if err := st.Options.Validate(); err != nil {
			return fmt.Errorf("run: %w", err)
		}
	}
	return nil
}

// mustExist checks that a flag's path (if given) is a file, or a folder.
func mustExist(flag, path string, folder bool) error {
	if path == "" {
		return nil
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return cliutil.Usagef("run: %s %s: no such %s", flag, path, map[bool]string{false: "file", true: "folder"}[folder])
	case folder && !st.IsDir():
		return cliutil.Usagef("run: %s %s is a file; name a folder", flag, path)
	case !folder && st.IsDir():
		return cliutil.Usagef("run: %s %s is a folder; name a file", flag, path)
	}
	return nil
}

// ReportDir is where the run writes the report.
func ReportDir(opts Options) string {
	if opts.Report != "" {
		return opts.Report
	}
	return filepath.Join(opts.Out, "report")
}

// StageError is a stage that failed; the run stopped there.
type StageError struct {
	Stage string
	Err   error
}

func (e *StageError) Error() string {
	return fmt.Sprintf("run stopped at stage %s: %v", e.Stage, e.Err)
}
func (e *StageError) Unwrap() error { return e.Err }

// Run runs the stages in order.
func Run(ctx context.Context, opts Options, stdout, stderr io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	// Both outputs are checked before any stage runs: the dataset may not
	// be, hold or lie inside the logs; the report folder may not be the
	// dataset, lie inside it (but as DIR/report) or meet the logs, and must
	// be new, empty or an earlier report.
	if _, err := guard.CheckDataset(opts.Out, guard.Rules{Avoid: opts.Logs}); err != nil {
		return err
	}
	if err := guard.CheckFolder(ReportDir(opts), "report", guard.Rules{Avoid: opts.Logs, Datasets: []string{opts.Out}}); err != nil {
		return err
	}
	var partial error
	stages := Stages(opts)
	for i, st := range stages {
		fmt.Fprintf(stdout, "== run %d/%d: %s\n", i+1, len(stages), st.Name)
		err := st.run(ctx, stdout, stderr)
		var p *cliutil.PartialError
		switch {
		case err == nil:
		case st.Name == "ingest" && errors.As(err, &p):
			// Unreadable files are listed and in ingest_errors; the rest of
			// the logs are in the tables, so the run goes on and still exits 1.
			fmt.Fprintf(stderr, "run: ingest: %v; going on with the logs that were read\n", err)
			partial = err
		default:
			return &StageError{Stage: st.Name, Err: err}
		}
	}
	// The report stage's own line, the last, says where the report is.
	return partial
}
