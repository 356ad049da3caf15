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
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/stages/analyzecmd"
	"empties/stages/checkcmd"
	"empties/stages/classifycmd"
	"empties/stages/decidecmd"
	"empties/stages/exposurecmd"
	"empties/stages/ingestcmd"
	"empties/stages/reportcmd"
	"empties/stages/reruncmd"
	"empties/stages/rescorecmd"
	"empties/stages/runcmd"
	"empties/stages/samplecmd"
	"empties/stages/schemacmd"
	"empties/stages/selectcmd"
	"empties/stages/servecmd"
	"empties/stages/sqlcmd"
)

// Version is stamped by the Makefile (-ldflags "-X empties/internal/app.Version=...").
var Version = "dev"

// Commands returns the stage commands, in pipeline order.
func Commands() []*cli.Command {
	return []*cli.Command{
		ingestcmd.Command(),
		classifycmd.Command(),
		samplecmd.Command(),
		rescorecmd.Command(),
		selectcmd.Command(),
		reruncmd.Command(),
		checkcmd.Command(),
		analyzecmd.Command(),
		decidecmd.Command(),
		reportcmd.Command(),
		sqlcmd.Command(),
		servecmd.Command(),
		schemacmd.Command(),
		exposurecmd.Command(),
		runcmd.Command(),
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
   empties rerun plans/wide.json --manifest data/study.yaml
   empties analyze --data data/study --manifest data/study.yaml
   empties decide --data data/study --manifest data/study.yaml
   empties report --data data/study --out report/

Ad hoc:
   empties sql "SELECT class, count(*) FROM replies GROUP BY ALL" --data data/study
   empties serve data/study                       # in the browser
   duckdb data/study/empties.duckdb`,
		Commands: Commands(),
	}
}

// Main runs cmd with args and returns the process exit code, decided here
// and only here from the error's type (never its text): 0 success, 1 a
// failure (a cliutil.PartialError too: some inputs failed), 2 a usage error
// (cliutil.UsageError, and every error the CLI library reports, such as a
// missing required flag or an unknown help topic, which it would otherwise
// exit with 3), 130 interrupted. Errors are printed once, here; stage code
// only returns them.
func Main(ctx context.Context, cmd *cli.Command, args []string, stdout, stderr io.Writer) int {
	cmd.Writer = stdout
	cmd.ErrWriter = stderr
	// urfave/cli v3 calls os.Exit inside Run for errors carrying an exit code
	// unless ExitErrHandler is set; that would skip deferred cleanup (DuckDB
	// checkpoints its WAL on Close). Handle every error below instead.
	cmd.ExitErrHandler = func(context.Context, *cli.Command, error) {}
	// Without OnUsageError the library prints "Incorrect Usage: ..." itself
	// and returns the same error, which would be printed twice; with it, a
	// flag or argument mistake comes back typed, as a UsageError.
	typedUsageErrors(cmd)
	err := unknownCommand(cmd, args)
	if err == nil {
		err = cmd.Run(ctx, args)
	}
	if err == nil {
		return 0
	}
	code, msg := exitCode(err), err.Error()
	// A stage stopped by an interrupt fails with whatever error the work in
	// flight returned (DuckDB's "INTERRUPT Error: Interrupted!", a read cut
	// short), not always one wrapping context.Canceled: once the context is
	// cancelled, any failure is the interrupt.
	if ctx.Err() != nil {
		code = 130
	}
	if code == 130 {
		msg = "interrupted"
	}
	// The prefix is the program's name, not the root's: a stage binary's
	// root is empties-<stage>, and a stage's errors already begin with
	// "<stage>: ", so its name there would be said twice.
	if msg != "" {
		fmt.Fprintf(stderr, "empties: %s\n", msg)
	}
	return code
}

// unknownCommand refuses a first argument that names no command of cmd
// (also after help), listing the commands; the library would say "No help
// topic" with exit code 3.
func unknownCommand(cmd *cli.Command, args []string) error {
	if len(cmd.Commands) == 0 || cmd.Action != nil {
		return nil
	}
	var names []string
	known := func(name string) bool {
		for _, c := range cmd.Commands {
			if c.HasName(name) {
				return true
			}
		}
		return false
	}
	for _, c := range cmd.Commands {
		if !c.Hidden && c.Name != "help" {
			names = append(names, c.Name)
		}
	}
	rest := args[min(1, len(args)):]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if strings.HasPrefix(a, "-") {
			continue
		}
		if (a == "help" || a == "h") && i+1 < len(rest) && !strings.HasPrefix(rest[i+1], "-") {
			a = rest[i+1]
		}
		if known(a) || a == "help" || a == "h" {
			return nil
		}
		return cliutil.Usagef("unknown command %q; the commands are %s (%s --help says what each does)", a, strings.Join(names, ", "), cmd.Name)
	}
	return nil
}

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	var usage *cliutil.UsageError
	var partial *cliutil.PartialError
	var library cli.ExitCoder
	var db *duckdb.Error
	switch {
	case errors.Is(err, context.Canceled):
		return 130
	case errors.As(err, &db) && db.Type == duckdb.ErrorTypeInterrupt:
		return 130
	case errors.As(err, &usage):
		return 2
	case errors.As(err, &partial):
		return 1
	case errors.As(err, &library):
		return 2 // the library's own errors are about how the command was called
	}
	return 1
}

// typedUsageErrors makes cmd and its subcommands return flag and argument
// mistakes as UsageErrors.
func typedUsageErrors(cmd *cli.Command) {
	cmd.OnUsageError = func(_ context.Context, _ *cli.Command, err error, _ bool) error {
		return &cliutil.UsageError{Msg: err.Error()}
	}
	for _, c := range cmd.Commands {
		typedUsageErrors(c)
	}
}

// RunMain is the body of every main. A first SIGINT or SIGTERM cancels the
// context: the stage stops at its next check and commits nothing; if it has
// not returned within StopGrace (a read blocked on a stalled file system), or
// a second signal comes, the process ends at once with code 130. A stage
// holding the stop (cliutil.HoldStop) is given no grace: it ends by itself,
// or at a second signal, after its force functions. Neither
// can leave a half-switched dataset: a stage's tables become current in one
// atomic rename (internal/store), so the dataset is the old one or the new
// one, and the next run removes what the stopped one left.
func RunMain(cmd *cli.Command) {
	// No heap profile is ever written, so the runtime need not sample
	// allocations (a stack walk every 512 KB: about 1% of ingest's time).
	runtime.MemProfileRate = 0
	ctx, cancel := context.WithCancel(context.Background())
	ctx, stop := cliutil.WithStop(ctx)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
		fmt.Fprintf(os.Stderr, "%s: stopping (interrupt again to stop at once)\n", cmd.Name)
		// a stage that holds the stop (cliutil.HoldStop: rerun, whose runner
		// is writing its logs) ends by itself; only a second signal ends it
		var grace <-chan time.Time
		if !stop.Held() {
			grace = time.After(stopGrace())
		}
		select {
		case <-sigs:
			fmt.Fprintf(os.Stderr, "%s: interrupted again: stopping now\n", cmd.Name)
			stop.Force()
		case <-grace:
			fmt.Fprintf(os.Stderr, "%s: interrupted: still busy after %s, stopping now\n", cmd.Name, stopGrace())
		}
		os.Exit(130)
	}()
	code := Main(ctx, cmd, os.Args, os.Stdout, os.Stderr)
	signal.Stop(sigs)
	os.Exit(code)
}

// StopGrace is how long a first signal waits for the stage to stop.
const StopGrace = 5 * time.Second

// stopGrace is StopGrace, or for the signal tests of the built binary the
// duration EMPTIES_TEST_STOP_GRACE gives: they prove the stage stops by
// itself (no watchdog message), which on a loaded machine can take longer
// than 5 s, and a test's verdict must not depend on the machine's load.
func stopGrace() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("EMPTIES_TEST_STOP_GRACE")); err == nil && d > 0 {
		return d
	}
	return StopGrace
}

// Stage turns one stage command into a root command of its own, for the thin
// stage binaries under cmd/.
func Stage(c *cli.Command) *cli.Command {
	c.Name = "empties-" + c.Name
	c.Version = Version
	return c
}
