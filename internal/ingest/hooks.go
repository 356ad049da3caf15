package ingest

import (
	"context"
	"sync/atomic"

	"empties/internal/evallog"
	"empties/internal/objstore"
)

// CountReads (for tests) counts, until the test ends, the log files and s3:// objects
// ingest opens (for their header and samples) and the files it hashes to
// settle a changed size or time.
func CountReads(t interface{ Cleanup(func()) }) (opened, hashed *atomic.Int64) {
	opened, hashed = new(atomic.Int64), new(atomic.Int64)
	o, ob, h := openLog, openObject, hashFile
	openLog = func(p string, lim evallog.Limits) (*evallog.Log, error) {
		opened.Add(1)
		return o(p, lim)
	}
	openObject = func(ctx context.Context, c *objstore.Client, obj objstore.Object, lim evallog.Limits) (*evallog.Log, error) {
		opened.Add(1)
		return ob(ctx, c, obj, lim)
	}
	hashFile = func(p string) (string, error) {
		hashed.Add(1)
		return h(p)
	}
	t.Cleanup(func() { openLog, openObject, hashFile = o, ob, h })
	return opened, hashed
}

// Version is the logs.ingest_version this ingest writes (ingestVersion).
func Version() string { return ingestVersion() }
