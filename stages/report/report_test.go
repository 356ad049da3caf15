package report_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"html"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/testutil"
	"empties/stages/analyze"
	"empties/stages/decide"
	"empties/stages/ingest"
	"empties/stages/report"
	"empties/stages/rescore"
)

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The same inputs give byte-identical reports.
func TestReportIsByteIdentical(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	if err := ingest.Run(ctx, ingest.Options{Paths: []string{testutil.Path(t, "testdata", "profiles")}, Out: data, Progress: "never"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	m := testutil.Path(t, "data", "study.yaml")
	if err := rescore.Run(ctx, rescore.Options{Data: data, Manifest: m}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := analyze.Run(ctx, analyze.Options{Data: data, Manifest: m}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := decide.Run(ctx, decide.Options{Data: data, Manifest: m}, io.Discard); err != nil {
		t.Fatal(err)
	}
	out1, out2 := filepath.Join(t.TempDir(), "r1"), filepath.Join(t.TempDir(), "r2")
	var log bytes.Buffer
	for _, out := range []string{out1, out2} {
		if err := report.Run(ctx, report.Options{Data: data, Out: out}, &log); err != nil {
			t.Fatal(err)
		}
	}
	a, b := readTree(t, out1), readTree(t, out2)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("files: %d vs %d", len(a), len(b))
	}
	for name, content := range a {
		if !bytes.Equal(content, b[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
	index := string(a["index.md"])
	for _, want := range []string{"tables/headlines.md", "tables/p0_check.csv", "tables/max_tokens_by_route.md",
		"plots/class_shares.png", "plots/d3_deltas.png", "tables/decisions.md"} {
		if !strings.Contains(index, want) {
			t.Errorf("index.md does not link %s", want)
		}
	}
	if !strings.Contains(string(a["tables/p0_check.csv"]), "xstest_safe") {
		t.Errorf("p0_check.csv lacks the xstest_safe row")
	}
	for _, plot := range []string{"plots/class_shares.png", "plots/class_shares.svg", "plots/d3_deltas.svg"} {
		if len(a[plot]) < 1000 {
			t.Errorf("%s missing or empty (%d bytes)", plot, len(a[plot]))
		}
	}
}

// Without a manifest the report is an exploration: rates per task × model and
// examples of each class with the address that opens them, in index.md and
// index.html, byte-identical across runs.
func TestExplorationReport(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	if err := ingest.Run(ctx, ingest.Options{Paths: []string{testutil.Path(t, "testdata", "profiles")}, Out: data, Progress: "never"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := analyze.Run(ctx, analyze.Options{Data: data}, io.Discard); err != nil {
		t.Fatal(err)
	}
	out1, out2 := filepath.Join(t.TempDir(), "r1"), filepath.Join(t.TempDir(), "r2")
	for _, out := range []string{out1, out2} {
		if err := report.Run(ctx, report.Options{Data: data, Out: out}, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	a, b := readTree(t, out1), readTree(t, out2)
	for _, name := range []string{"index.md", "index.html"} {
		if len(a[name]) == 0 || !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s missing or different between two runs", name)
		}
	}
	index := string(a["index.md"])
	for _, want := range []string{"# Empty responses: exploration report", "D1-D4 need the study manifest",
		"### Logs read", "### Non-answer rates per eval × route", "### How the replies were chosen",
		"### Truncation against the effective max_tokens", "### Judges that received a non-answer", "### Examples per class",
		"](http://127.0.0.1:7575/#/logs/", "inspect view --log-dir '", "plots/non_answer_rates.png", "tables/class_examples.md"} {
		if !strings.Contains(index, want) {
			t.Errorf("index.md lacks %q", want)
		}
	}
	// Every class drawn has its heading, and the page shows every example link.
	classes := map[string]bool{}
	r := csv.NewReader(bytes.NewReader(a["tables/class_examples.csv"]))
	recs, err := r.ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("class_examples.csv: %d records, %v", len(recs), err)
	}
	urlCol := -1
	for i, c := range recs[0] {
		if c == "view_url" {
			urlCol = i
		}
	}
	for _, rec := range recs[1:] {
		classes[rec[0]] = true
		if !strings.Contains(string(a["index.html"]), `<a href="`+html.EscapeString(rec[urlCol])+`">`) {
			t.Errorf("index.html has no link to %s", rec[urlCol])
		}
	}
	for c := range classes {
		if !strings.Contains(index, "#### "+c+" (") {
			t.Errorf("index.md has no examples heading for class %s", c)
		}
	}
	if strings.Contains(string(a["index.html"]), "<img") || !strings.Contains(string(a["index.html"]), `<svg class="plot"`) {
		t.Errorf("index.html does not inline its plots as SVG")
	}
}
