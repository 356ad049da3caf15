package reportcmd_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/guard"
	"empties/internal/ingest"
	"empties/internal/ingest/ingesttest"
	"empties/internal/testutil"
	"empties/stages/reportcmd"
)

// TestReportOutRefusals: every place a report must not go is refused before
// any work, and the user's files, the logs and the datasets are left byte for
// byte as they were; a report goes to a new folder, an empty one (`.`
// included), DIR/report, or over an earlier report, and a user's R.tmp
// beside it is not touched.
func TestReportOutRefusals(t *testing.T) {
	base := t.TempDir()
	logs := filepath.Join(base, "logs")
	testutil.CopyFile(t, testutil.Path(t, "testdata", "logs", "zstd-basic.eval"), filepath.Join(logs, "zstd-basic.eval"))
	data := filepath.Join(base, "ds")
	other := filepath.Join(base, "other-ds")
	for _, d := range []string{data, other} {
		ingesttest.Build(t, ingest.Config{Paths: []string{logs}, Out: d})
	}
	mine := testutil.NewUserTree(t, filepath.Join(base, "mine"))
	rtmp := testutil.NewUserTree(t, filepath.Join(base, "R.tmp"))
	file := filepath.Join(base, "a-file.txt")
	os.WriteFile(file, []byte("mine"), 0o644)
	whole := testutil.WitnessTree(t, base)
	run := func(out string, avoid ...string) error {
		return reportcmd.Run(context.Background(), reportcmd.Options{Data: data, Out: out, Avoid: avoid}, io.Discard)
	}
	for _, c := range []struct {
		name, out string
		avoid     []string
	}{
		{"a user's folder", mine.Dir, nil},
		{"the logs", logs, nil},
		{"the logs (run)", logs, []string{logs}},
		{"inside the logs (run)", filepath.Join(logs, "report"), []string{logs}},
		{"the logs' parent", base, nil},
		{"another dataset", other, nil},
		{"its own --data", data, nil},
		{"DS/current", filepath.Join(data, "current"), nil},
		{"DS/gen", filepath.Join(data, "gen"), nil},
		{"DS/gen/x", filepath.Join(data, "gen", "x"), nil},
		{"a file", file, nil},
	} {
		err := run(c.out, c.avoid...)
		var r *guard.Refusal
		if !errors.As(err, &r) {
			t.Errorf("report --out %s (%s): %v, want a refusal", c.out, c.name, err)
		}
		whole.Check(t, "report --out "+c.name)
	}

	// allowed: DS/report, twice; a new R beside a user's R.tmp
	for range 2 {
		if err := run(filepath.Join(data, "report")); err != nil {
			t.Fatal(err)
		}
		if err := run(filepath.Join(base, "R")); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(data, "report", "index.html"), filepath.Join(base, "R", "index.md")} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	mine.Check(t, "reports")
	rtmp.Check(t, "reports")
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		if strings.Contains(e.Name(), "empties-tmp") {
			t.Errorf("left behind: %s", e.Name())
		}
	}

	// `.`: empty, then an earlier report, then with a user's file
	dot := filepath.Join(base, "dot")
	os.Mkdir(dot, 0o755)
	t.Chdir(dot)
	for range 2 {
		if err := run("."); err != nil {
			t.Fatalf("report --out . : %v", err)
		}
		if _, err := os.Stat("index.html"); err != nil {
			t.Error(err)
		}
	}
	os.WriteFile("mine.txt", []byte("mine"), 0o644)
	dotTree := testutil.WitnessTree(t, dot)
	if err := run("."); err == nil {
		t.Error("report --out . with a user's file in it was not refused")
	}
	dotTree.Check(t, "report --out . refused")
}
