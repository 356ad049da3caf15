package objstore

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"empties/internal/evallog"
)

// HeaderOnly, passed to OpenLog, reads an .eval log's central directory and
// header members only, leaving Log.SHA256 empty.
const HeaderOnly = true

// OpenLog opens a listed object as a log; Log.Path is its URL.
//
// An .eval log is read in place: its central directory and each member
// through ranged GETs as they are needed, and, unless headerOnly, its
// SHA-256 from one streaming GET of the whole object. Any other object (a
// .json log) is streamed once, in one GET, into an unlinked temporary file
// that the scan and the later sample reads share: a .json log is read
// front to back whatever is needed of it.
func (c *Client) OpenLog(ctx context.Context, o Object, lim evallog.Limits, headerOnly bool) (*evallog.Log, error) {
	if strings.HasSuffix(o.Key, ".eval") {
		r := c.Open(ctx, o)
		return evallog.OpenSource(evallog.Source{
			Name: o.URL, Size: o.Size, ModTime: o.LastModified, ReaderAt: r,
			Stream: func() (io.ReadCloser, error) { return c.Stream(ctx, o) },
			NoHash: headerOnly,
		}, lim)
	}
	f, err := c.spool(ctx, o)
	if err != nil {
		return nil, err
	}
	return evallog.OpenSource(evallog.Source{Name: o.URL, Size: o.Size, ModTime: o.LastModified, ReaderAt: f, Close: f.Close}, lim)
}

// spool copies an object into a temporary file that is already unlinked:
// nothing is left behind however the run ends.
func (c *Client) spool(ctx context.Context, o Object) (*os.File, error) {
	body, err := c.Stream(ctx, o)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	f, err := os.CreateTemp("", "empties-s3-*.json")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.URL, err)
	}
	os.Remove(f.Name())
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
