package objstore

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"empties/internal/evallog"
	"empties/internal/guard"
)

// HeaderOnly, passed to OpenLog, reads an .eval log's central directory and
// header members only, leaving Log.SHA256 empty.
const HeaderOnly = true

// OpenLog opens a listed object as a log; Log.Path is its URL.
//
// An .eval log is read in place. Header-only, only its central directory
// and header members are fetched, through ranged GETs. Otherwise each of
// its bytes is fetched once (spool.go): the central directory and header
// as for a header-only read, then, from the first sample read on, the rest
// of the object in order into an unlinked temporary file that the member
// reads are served from as it fills; Log.FinishHash gives its SHA-256 once
// the download ends. Any other object (a .json log) is streamed once, in
// one GET, into an unlinked temporary file that the scan and the later
// sample reads share: a .json log is read front to back whatever is needed
// of it.
func (c *Client) OpenLog(ctx context.Context, o Object, lim evallog.Limits, headerOnly bool) (*evallog.Log, error) {
	if strings.HasSuffix(o.Key, ".eval") {
		src := evallog.Source{Name: o.URL, Size: o.Size}
		if headerOnly {
			src.ReaderAt, src.NoHash = c.Open(ctx, o), true
			return evallog.OpenSource(src, lim)
		}
		s, err := c.openSpool(ctx, o)
		if err != nil {
			return nil, err
		}
		src.ReaderAt, src.Hash, src.Close = s, s.Hash, s.Close
		l, err := evallog.OpenSource(src, lim) // closes s on an error
		if err != nil {
			return nil, err
		}
		s.sequential()
		return l, nil
	}
	f, err := c.spool(ctx, o)
	if err != nil {
		return nil, err
	}
	return evallog.OpenSource(evallog.Source{Name: o.URL, Size: o.Size, ReaderAt: f, Close: f.Close}, lim)
}

// spool copies an object into a temporary file that is already unlinked:
// nothing is left behind however the run ends.
func (c *Client) spool(ctx context.Context, o Object) (*os.File, error) {
	body, err := c.Stream(ctx, o)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	f, err := guard.Unlinked("empties-s3-*.json")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.URL, err)
	}
	n, err := io.Copy(f, body)
	if err == nil && n != o.Size {
		err = fmt.Errorf("read %d bytes where the listing says %d: the object changed while being read", n, o.Size)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", o.URL, err)
	}
	return f, nil
}
