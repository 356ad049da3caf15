package runcmd_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"empties/internal/guard"
	"empties/internal/testutil"
	"empties/stages/runcmd"
)

// TestRunRefusesBeforeAnyWork: `run --report` into the logs, inside them,
// their parent or the dataset folder itself, and `--out` into, around or
// inside the logs, are refused before the first stage: no dataset is made
// and the logs are left byte for byte.
func TestRunRefusesBeforeAnyWork(t *testing.T) {
	base := t.TempDir()
	logs := filepath.Join(base, "logs")
	testutil.CopyFile(t, testutil.Path(t, "testdata", "logs", "zstd-basic.eval"), filepath.Join(logs, "zstd-basic.eval"))
	whole := testutil.WitnessTree(t, base)
	out := filepath.Join(base, "ds")
	for _, c := range []struct{ name, out, report string }{
		{"--report the logs", out, logs},
		{"--report inside the logs", out, filepath.Join(logs, "report")},
		{"--report the logs' parent", out, base},
		{"--report the dataset", out, out},
		{"--report DS/gen", out, filepath.Join(out, "gen")},
		{"--out the logs", logs, ""},
		{"--out inside the logs", filepath.Join(logs, "ds"), ""},
		{"--out the logs' parent", base, ""},
	} {
		err := runcmd.Run(context.Background(), runcmd.Options{Logs: []string{logs}, Out: c.out, Report: c.report, Progress: "never", ExamplesPerClass: 1}, io.Discard, io.Discard)
		var r *guard.Refusal
		if !errors.As(err, &r) {
			t.Errorf("%s: %v, want a refusal", c.name, err)
		}
		whole.Check(t, c.name)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused run made %s (%v)", out, err)
	}
}
