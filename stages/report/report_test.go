package report_test

import (
	"bytes"
	"context"
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
