package ingestcmd_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/store"
	"empties/internal/testutil"
	"empties/stages/ingestcmd"
)

// `empties ingest logs --out .` in a folder holding Inspect's ./logs is
// refused, and every file stays as it was (the tables would once have been
// written over ./logs).
func TestOutDotBesideInspectLogs(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	os.MkdirAll(logs, 0o755)
	b, err := os.ReadFile(testutil.Path(t, "testdata", "logs", "zstd-basic.eval"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(logs, "2025-01-01T00-00-00_task_abc.eval"), b, 0o644)
	os.WriteFile(filepath.Join(logs, "logs.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("mine"), 0o644)
	before := testutil.Snapshot(t, dir)
	t.Chdir(dir)
	var out, errb bytes.Buffer
	err = ingestcmd.Run(context.Background(), options(".", "logs"), &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "holds logs, which this command reads") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("ingest --out . beside ./logs: %v", err)
	}
	after := testutil.Snapshot(t, dir)
	if len(after) != len(before) {
		t.Errorf("files before %v, after %v", before, after)
	}
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed", p)
		}
	}
	// Into a folder of its own beside the logs, it works, and a second run
	// replaces the tables in place.
	for range 2 {
		if err := ingestcmd.Run(context.Background(), options("data", "logs"), &out, &errb); err != nil {
			t.Fatal(err)
		}
	}
	if !store.HasTable(filepath.Join(dir, "data"), "replies") {
		t.Error("no replies table in data/")
	}
	if after := testutil.Snapshot(t, logs); len(after) != 3 {
		t.Errorf("logs/ now holds %v", after)
	}
}

// An empties dataset inside a logs folder (an earlier ingest's --out) is
// no folder of logs: a later ingest of the folder leaves it out silently,
// listing none of its generation.json files as skipped non-logs, and
// ingesting the dataset itself as logs is refused by name.
func TestDatasetInsideLogsIsLeftOut(t *testing.T) {
	logs := t.TempDir()
	b, err := os.ReadFile(testutil.Path(t, "testdata", "logs", "zstd-basic.eval"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(logs, "a.eval"), b, 0o644)
	inner := filepath.Join(t.TempDir(), "ds")
	if err := ingestcmd.Run(context.Background(), options(inner, logs), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	// twice, so the dataset holds more than one generation's leftovers
	if err := ingestcmd.Run(context.Background(), full(options(inner, logs)), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(logs, "results")
	if err := os.Rename(inner, moved); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ingestcmd.Run(context.Background(), options(t.TempDir(), logs), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "ingested 1 of 1 file") || strings.Contains(out.String(), "skipped") {
		t.Errorf("ingest of a logs folder holding a dataset:\n%s", out.String())
	}
	err = ingestcmd.Run(context.Background(), options(t.TempDir(), moved), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "is an empties dataset, not a folder of logs") {
		t.Errorf("ingest of a dataset: %v", err)
	}
}
