package ingest_test

import (
	"bytes"
	"context"
	"testing"

	"empties/internal/ingest"
)

// runIngest ingests paths into a new dataset, returning it, what was logged
// (the command's stderr) and the error the command exits with. stdout is
// empty: the summary is the command's (stages/ingest).
func runIngest(t *testing.T, paths ...string) (dir, stdout, stderr string, err error) {
	t.Helper()
	dir = t.TempDir()
	var errb bytes.Buffer
	err = ingest.Build(context.Background(), ingest.Config{Paths: paths, Out: dir, Workers: 3, Log: &errb})
	return dir, "", errb.String(), err
}
