package ingest_test

import (
	"bytes"
	"context"
	"testing"

	"empties/internal/ingest"
)

// runIngest ingests paths into a new dataset, returning it, the result (nil
// when the ingest failed), what was logged (the command's stderr) and the
// error the command exits with (ingest.Build's).
func runIngest(t *testing.T, paths ...string) (dir string, res *ingest.Result, log string, err error) {
	t.Helper()
	dir = t.TempDir()
	res, log, err = ingestWith(t, ingest.Config{Paths: paths, Out: dir, Workers: 3})
	return dir, res, log, err
}

// ingestWith runs an ingest of cfg, returning its result (nil when it
// failed), what was logged and the error the command exits with: Ingest's,
// or the result's Partial.
func ingestWith(t *testing.T, cfg ingest.Config) (*ingest.Result, string, error) {
	t.Helper()
	var log bytes.Buffer
	cfg.Log = &log
	res, err := ingest.Ingest(context.Background(), cfg)
	if err == nil {
		err = res.Partial()
	}
	return res, log.String(), err
}
