package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/stages/analyzecmd"
)

// Main maps every kind of error to its exit code and prints it once.
func TestExitCodes(t *testing.T) {
	stage := func(err error) *cli.Command {
		return &cli.Command{Name: "empties", Commands: []*cli.Command{{
			Name:   "stage",
			Flags:  []cli.Flag{&cli.StringFlag{Name: "data", Required: true}},
			Action: func(context.Context, *cli.Command) error { return err },
		}}}
	}
	for _, c := range []struct {
		name string
		err  error
		args []string
		code int
		says string
	}{
		{"success", nil, []string{"stage", "--data", "d"}, 0, ""},
		{"a failure", errors.New("reading x.eval: member y: bad zip"), []string{"stage", "--data", "d"}, 1, "reading x.eval: member y: bad zip"},
		{"a wrapped usage error", fmt.Errorf("wrapped: %w", cliutil.Usagef("decide: no tables")), []string{"stage", "--data", "d"}, 2, "decide: no tables"},
		{"some inputs failed", &cliutil.PartialError{Msg: "2 of 5 files failed"}, []string{"stage", "--data", "d"}, 1, "2 of 5 files failed"},
		{"interrupted", fmt.Errorf("ingest: %w", context.Canceled), []string{"stage", "--data", "d"}, 130, "interrupted"},
		{"interrupted inside DuckDB", fmt.Errorf("sql/x.sql: %w", &duckdb.Error{Type: duckdb.ErrorTypeInterrupt, Msg: "INTERRUPT Error: Interrupted!"}), []string{"stage", "--data", "d"}, 130, "interrupted"},
		{"an unknown command", nil, []string{"frobnicate"}, 2, `unknown command "frobnicate"; the commands are stage`},
		{"help on an unknown command", nil, []string{"help", "frobnicate"}, 2, `unknown command "frobnicate"`},
		{"a required flag missing", nil, []string{"stage"}, 2, "Required flag"},
		{"an unknown flag", nil, []string{"stage", "--data", "d", "--nope"}, 2, "flag provided but not defined"},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), stage(c.err), append([]string{"empties"}, c.args...), &stdout, &stderr)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", c.name, code, c.code, stderr.String())
		}
		if c.says == "" {
			if stderr.Len() != 0 {
				t.Errorf("%s: stderr %q", c.name, stderr.String())
			}
			continue
		}
		if n := strings.Count(stderr.String(), c.says); n != 1 {
			t.Errorf("%s: the message is printed %d times: %q", c.name, n, stderr.String())
		}
	}
}

// Once the context is cancelled (the first SIGINT), a stage that fails
// exits 130 "interrupted" whatever its error says: the work in flight
// fails with errors of its own (analyze's queries gave "sql/x.sql:
// INTERRUPT Error: Interrupted!", exit 1, in 6 of 12 tries).
func TestInterruptedIs130WhateverTheError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	root := &cli.Command{Name: "empties", Commands: []*cli.Command{{
		Name: "analyze",
		Action: func(context.Context, *cli.Command) error {
			cancel() // the signal arrives while a query runs
			return errors.New("sql/x.sql: INTERRUPT Error: Interrupted!")
		},
	}}}
	var stdout, stderr bytes.Buffer
	if code := Main(ctx, root, []string{"empties", "analyze"}, &stdout, &stderr); code != 130 || stderr.String() != "empties: interrupted\n" {
		t.Errorf("exit %d, stderr %q, want 130 and interrupted", code, stderr.String())
	}
}

// The real command line: the library's own errors are usage errors (2, never
// its 3), printed once.
func TestRootUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"decide"}, `Required flags "data, manifest" not set`},
		{[]string{"help", "nosuch"}, "nosuch"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"; the commands are ingest, classify, sample`},
		{[]string{"schema", "--format", "yaml"}, "--format must be text, markdown or json"},
		{[]string{"ingest", "--no-such-flag", "x"}, "flag provided but not defined"},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), Root(), append([]string{"empties"}, c.args...), &stdout, &stderr)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, stderr.String())
		}
		if n := strings.Count(stderr.String(), c.says); n != 1 || strings.Contains(stderr.String(), "Incorrect Usage") {
			t.Errorf("%v: %q printed %d times: %q", c.args, c.says, n, stderr.String())
		}
	}
}

// A stage binary's errors name the stage once: its root is empties-<stage>
// and the stage's message already begins with "<stage>: ".
func TestStageBinaryPrefix(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"a stage's usage error", []string{"empties-analyze", "--data", dir}, "empties: analyze: " + dir + " is not an empties dataset"},
		{"the library's usage error", []string{"empties-analyze"}, `empties: Required flag "data" not set`},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), Stage(analyzecmd.Command()), c.args, &stdout, &stderr)
		if code != 2 || !strings.HasPrefix(stderr.String(), c.want) || strings.Count(stderr.String(), "analyze:") > 1 {
			t.Errorf("%s: exit %d, stderr %q, want it to start %q", c.name, code, stderr.String(), c.want)
		}
	}
}
