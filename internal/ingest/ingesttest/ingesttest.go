// Package ingesttest builds datasets for tests by running the real ingest
// (internal/ingest) on fixture logs. It lives apart from internal/testutil,
// which ingest's own tests import.
package ingesttest

import (
	"bytes"
	"context"
	"testing"

	"empties/internal/ingest"
	"empties/internal/testutil"
)

// Dataset ingests paths into a new dataset in a temporary folder and returns
// the folder; a failed or partial ingest fails the test.
func Dataset(t testing.TB, paths ...string) string {
	t.Helper()
	return Build(t, ingest.Config{Paths: paths})
}

// Fixtures ingests the fixture logs under testdata/ named by dirs (e.g.
// "logs", "classify") into a new dataset and returns its folder.
func Fixtures(t testing.TB, dirs ...string) string {
	t.Helper()
	paths := make([]string, len(dirs))
	for i, d := range dirs {
		paths[i] = testutil.Path(t, "testdata", d)
	}
	return Dataset(t, paths...)
}

// Build runs ingest.Build with cfg (an empty cfg.Out is a new temporary
// folder) and returns cfg.Out. A failed or partial ingest fails the test with
// what ingest logged (cfg.Log, when set, receives it instead).
func Build(t testing.TB, cfg ingest.Config) string {
	t.Helper()
	if cfg.Out == "" {
		cfg.Out = t.TempDir()
	}
	var log bytes.Buffer
	if cfg.Log == nil {
		cfg.Log = &log
	}
	if err := ingest.Build(context.Background(), cfg); err != nil {
		t.Fatalf("ingest %v into %s: %v\n%s", cfg.Paths, cfg.Out, err, log.String())
	}
	return cfg.Out
}
