package objstore

import (
	"context"
	"time"
)

// Spool is a full read of an object, for the tests: OpenSpool opens one as
// OpenLog does, Sequential ends its open.
type Spool = spool

func (c *Client) OpenSpool(ctx context.Context, o Object) (*Spool, error) { return c.openSpool(ctx, o) }

func (s *spool) Sequential() { s.sequential() }

// SetDownloadHook calls f after each chunk a download writes, until the
// returned func restores the default.
func SetDownloadHook(f func(pos int64)) (restore func()) {
	downloadHook = f
	return func() { downloadHook = nil }
}

// SetPrefetchBelow sets the size under which a download starts at open.
func SetPrefetchBelow(n int64) (restore func()) {
	old := prefetchBelow
	prefetchBelow = n
	return func() { prefetchBelow = old }
}

// SetResumeWait sets the wait before the first resumed GET.
func SetResumeWait(d time.Duration) (restore func()) {
	old := resumeWait
	resumeWait = d
	return func() { resumeWait = old }
}
