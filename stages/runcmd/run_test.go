package runcmd_test

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
	"empties/internal/store"
	"empties/internal/testutil"
	"empties/stages/runcmd"
)

func names(opts runcmd.Options) string {
	var n []string
	for _, st := range runcmd.Stages(opts) {
		n = append(n, st.Name)
	}
	return strings.Join(n, " ")
}

func TestStagesDependOnTheManifest(t *testing.T) {
	for _, c := range []struct {
		opts runcmd.Options
		want string
	}{
		{runcmd.Options{}, "ingest analyze report"},
		{runcmd.Options{Manifest: "m.yaml"}, "ingest rescore check analyze decide report"},
		{runcmd.Options{Manifest: "m.yaml", InspectEvals: "ie"}, "ingest rescore check analyze exposure decide report"},
		{runcmd.Options{InspectEvals: "ie"}, "ingest analyze exposure report"},
	} {
		if got := names(c.opts); got != c.want {
			t.Errorf("%+v: stages %q, want %q", c.opts, got, c.want)
		}
	}
}

// Any folder of logs, no manifest: the report is written where the run says,
// and unreadable files do not stop it but make it exit 1.
func TestRunWithoutManifest(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ds")
	var stdout, stderr bytes.Buffer
	err := runcmd.Run(context.Background(), runcmd.Options{Logs: []string{testutil.Path(t, "testdata", "profiles")}, Out: out, Progress: "never", ExamplesPerClass: 1}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{"== run 1/3: ingest", "== run 2/3: analyze", "== run 3/3: report",
		"(open " + filepath.Join(out, "report", "index.html") + " in a browser, or " + filepath.Join(out, "report", "index.md") + ")\n"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	// The report's path is said once, on the last line, and what needs the
	// manifest on one line.
	if n := strings.Count(stdout.String(), filepath.Join(out, "report", "index.html")); n != 1 || !strings.HasSuffix(stdout.String(), "index.md)\n") {
		t.Errorf("the report's path is said %d times, or not last:\n%s", n, stdout.String())
	}
	if n := strings.Count(stdout.String(), "(--manifest)"); n != 1 {
		t.Errorf("the manifest is named on %d lines, want 1:\n%s", n, stdout.String())
	}
	for _, f := range []string{"index.md", "index.html"} {
		if _, err := os.Stat(filepath.Join(out, "report", f)); err != nil {
			t.Error(err)
		}
	}
	if !store.HasTable(out, "class_examples") || store.HasTable(out, "log_assignments") {
		t.Errorf("tables: class_examples %v, log_assignments %v", store.HasTable(out, "class_examples"), store.HasTable(out, "log_assignments"))
	}

	// A folder holding an unreadable file: the run goes on, then exits 1.
	logs := t.TempDir()
	good, err := os.ReadFile(testutil.Path(t, "testdata", "logs", "zstd-basic.eval"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(logs, "good.eval"), good, 0o644)
	os.WriteFile(filepath.Join(logs, "broken.eval"), []byte("not a zip"), 0o644)
	stdout.Reset()
	report := filepath.Join(t.TempDir(), "elsewhere")
	err = runcmd.Run(context.Background(), runcmd.Options{Logs: []string{logs}, Out: filepath.Join(t.TempDir(), "ds2"), Report: report, Progress: "never", ExamplesPerClass: 1}, &stdout, &stderr)
	var partial *cliutil.PartialError
	if !errors.As(err, &partial) {
		t.Fatalf("err = %v, want the ingest PartialError", err)
	}
	if _, err := os.Stat(filepath.Join(report, "index.html")); err != nil || !strings.Contains(stdout.String(), filepath.Join(report, "index.md")) {
		t.Errorf("--report: %v\n%s", err, stdout.String())
	}
}

// The first stage that fails stops the run, named.
func TestRunStopsAtTheFailingStage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ds")
	manifest := filepath.Join(t.TempDir(), "broken-manifest.yaml")
	os.WriteFile(manifest, []byte("routes: [unclosed\n"), 0o644) // exists, so only rescore finds it wrong
	var stdout, stderr bytes.Buffer
	err := runcmd.Run(context.Background(), runcmd.Options{Logs: []string{testutil.Path(t, "testdata", "profiles")}, Out: out,
		Manifest: manifest, Progress: "never", ExamplesPerClass: 1}, &stdout, &stderr)
	var se *runcmd.StageError
	if !errors.As(err, &se) || se.Stage != "rescore" || !strings.Contains(err.Error(), "run stopped at stage rescore") {
		t.Fatalf("err = %v, want a StageError at rescore", err)
	}
	if strings.Contains(stdout.String(), "analyze") || strings.Contains(stdout.String(), "== report:") {
		t.Errorf("stages ran after the failure:\n%s", stdout.String())
	}
}

// Every flag is checked before the first stage starts: a bad value is a
// usage error and nothing is written (not even the dataset folder).
func TestRunChecksFlagsFirst(t *testing.T) {
	logs := testutil.Path(t, "testdata", "logs", "zstd-basic.eval")
	for _, c := range []struct {
		name string
		opts runcmd.Options
		want string
	}{
		{"--progress", runcmd.Options{Progress: "sometimes"}, "--progress must be auto, always, never or json"},
		{"--manifest", runcmd.Options{Manifest: "no/such.yaml"}, "--manifest no/such.yaml: no such file"},
		{"--inspect-evals", runcmd.Options{InspectEvals: logs}, "is a file; name a folder"},
	} {
		out := filepath.Join(t.TempDir(), "ds")
		c.opts.Logs, c.opts.Out, c.opts.ExamplesPerClass = []string{logs}, out, 1
		var stdout bytes.Buffer
		err := runcmd.Run(context.Background(), c.opts, &stdout, io.Discard)
		var usage *cliutil.UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a usage error saying %q", c.name, err, c.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("%s: a stage started: %q", c.name, stdout.String())
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %s was made", c.name, out)
		}
	}
}
