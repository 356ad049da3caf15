package app

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/cliutil"
	"empties/internal/testutil"
	"empties/stages/analyzecmd"
	"empties/stages/checkcmd"
	"empties/stages/classifycmd"
	"empties/stages/decidecmd"
	"empties/stages/exposurecmd"
	"empties/stages/reportcmd"
	"empties/stages/rescorecmd"
	"empties/stages/samplecmd"
	"empties/stages/selectcmd"
	"empties/stages/sqlcmd"
)

// Every stage's options are checked by its Validate before any work: a
// mistake is a usage error (exit 2) saying what is wrong, and nothing is
// read or written. Through the command line, as a user makes them.
func TestStagesRefuseWrongOptionsBeforeWork(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out") // never made
	log := testutil.Path(t, "testdata", "logs", "zstd-basic.eval")
	manifest := testutil.Path(t, "data", "study.yaml")
	for _, c := range []struct {
		name string
		args []string
		says string
	}{
		{"analyze: no draw", []string{"analyze", "--data", dir, "--examples-per-class", "0"},
			"analyze: --examples-per-class must be at least 1, got 0"},
		{"analyze: an override of no manifest", []string{"analyze", "--data", dir, "--allow-prereg-mismatch"},
			"analyze: --allow-prereg-mismatch needs --manifest"},
		{"exposure: no PATH", []string{"exposure", "--out", out},
			"exposure: give one PATH (an inspect_evals source tree or package folder), got 0 arguments"},
		{"exposure: two PATHs", []string{"exposure", dir, dir, "--out", out},
			"exposure: give one PATH"},
		{"ingest: negative workers", []string{"ingest", log, "--out", out, "--workers", "-1"},
			"ingest: --workers must be 0 (one per CPU) or more, not -1"},
		{"rerun: no plan", []string{"rerun", "--manifest", manifest},
			"rerun: name the plan to run"},
		{"rerun: a negative log buffer, before the plan is read", []string{"rerun", filepath.Join(dir, "none.json"), "--manifest", manifest, "--log-buffer", "-1"},
			"rerun: --log-buffer -1"},
		{"run: no LOGS", []string{"run", "--out", out},
			"run: give one or more LOGS"},
		{"run: analyze's draw, before ingest starts", []string{"run", log, "--out", out, "--examples-per-class", "0"},
			"run: analyze: --examples-per-class must be at least 1, got 0"},
		{"run: an override of no manifest, before ingest starts", []string{"run", log, "--out", out, "--allow-prereg-mismatch"},
			"run: analyze: --allow-prereg-mismatch needs --manifest"},
		{"sample: no draw", []string{"sample", "--data", dir, "--per-class", "0"},
			"sample: --per-class must be positive, not 0"},
		{"schema: the format, before the table", []string{"schema", "nosuch", "--format", "yaml"},
			`schema: --format must be text, markdown or json, not "yaml"`},
		{"select: an unknown plan, before the dataset is read", []string{"select", "sideways", "--data", dir, "--manifest", manifest, "--out", out},
			`select: "sideways": plans are wide, control, partc and partb`},
		{"serve: no port", []string{"serve", dir, "--port", "70000"},
			"serve: --port 70000 is not a port"},
		{"sql: no query", []string{"sql", "", "--data", dir},
			"sql: no QUERY given"},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), Root(), append([]string{"empties"}, c.args...), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.says) {
			t.Errorf("%s: exit %d, want 2 and %q\nstderr: %s", c.name, code, c.says, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("%s: work began: %q", c.name, stdout.String())
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("%s: %s was made", c.name, out)
		}
	}
}

// The flags the command line requires are required of a Go caller too
// (run, tests, a script): a stage's Run called with what it lacks names the
// flag, where it said "check: : no such folder" or failed later.
func TestStagesNameWhatTheirOptionsLack(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		stage string
		run   func() error
		says  string
	}{
		{"analyze", func() error { return analyzecmd.Run(ctx, analyzecmd.Options{}, io.Discard) }, "analyze: --data DIR is required"},
		{"check", func() error { return checkcmd.Run(ctx, checkcmd.Options{}, io.Discard) }, "check: --data DIR is required"},
		{"classify", func() error { return classifycmd.Run(ctx, classifycmd.Options{}, io.Discard) }, "classify: --data DIR is required"},
		{"decide", func() error {
			o := decidecmd.Options{}
			o.Data = "d"
			return decidecmd.Run(ctx, o, io.Discard)
		}, "decide: --manifest FILE is required"},
		{"exposure", func() error { return exposurecmd.Run(ctx, exposurecmd.Options{Out: "o"}, io.Discard) }, "exposure: PATH is required"},
		{"report", func() error { return reportcmd.Run(ctx, reportcmd.Options{Data: "d"}, io.Discard) }, "report: --out DIR is required"},
		{"rescore", func() error {
			o := rescorecmd.Options{}
			o.Data = "d"
			return rescorecmd.Run(ctx, o, io.Discard)
		}, "rescore: --manifest FILE is required"},
		{"sample", func() error {
			o := samplecmd.Options{}
			o.PerClass = 1
			return samplecmd.Run(ctx, o, io.Discard)
		}, "sample: --data DIR is required"},
		{"select", func() error {
			o := selectcmd.Options{}
			o.Kind, o.Data = "wide", "d"
			return selectcmd.Run(ctx, o, io.Discard)
		}, "select: --manifest FILE is required"},
		{"sql", func() error { return sqlcmd.Run(ctx, sqlcmd.Options{Query: "SELECT 1", Format: "table"}, io.Discard) }, "sql: --data DIR is required"},
	} {
		err := c.run()
		var usage *cliutil.UsageError
		if !errors.As(err, &usage) || err.Error() != c.says {
			t.Errorf("%s: %v, want the usage error %q", c.stage, err, c.says)
		}
	}
}
