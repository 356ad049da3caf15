package ingest

import (
	"sync/atomic"
	"testing"

	"empties/internal/evallog"
)

// CountReads counts, until the test ends, the log files ingest opens (for
// their header and samples) and the files it hashes to settle a changed
// size or time.
func CountReads(t testing.TB) (opened, hashed *atomic.Int64) {
	opened, hashed = new(atomic.Int64), new(atomic.Int64)
	o, h := openLog, hashFile
	openLog = func(p string, lim evallog.Limits) (*evallog.Log, error) {
		opened.Add(1)
		return o(p, lim)
	}
	hashFile = func(p string) (string, error) {
		hashed.Add(1)
		return h(p)
	}
	t.Cleanup(func() { openLog, hashFile = o, h })
	return opened, hashed
}
