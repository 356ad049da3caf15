package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"empties/internal/evallog"
	"empties/internal/objstore"
)

// logRow is what the server keeps of a logs row: where the log is and the
// fingerprint it had when it was read.
type logRow struct {
	LogID, Path, Format, Task, Model, Status, SetStatus string
	Size                                                int64
	Modified                                            *time.Time
	ETag                                                *string
	SupersededBy, SupersededReason                      *string
}

// loadLogs reads the generation's logs table.
func (g *generation) loadLogs(ctx context.Context) error {
	g.logs = map[string]*logRow{}
	rows, err := g.db.QueryContext(ctx, `SELECT log_id, path, format, task, model, status, set_status, size_bytes, modified, etag,
		superseded_by, superseded_reason FROM logs`)
	if err != nil {
		return fmt.Errorf("reading the logs table: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var l logRow
		if err := rows.Scan(&l.LogID, &l.Path, &l.Format, &l.Task, &l.Model, &l.Status, &l.SetStatus, &l.Size, &l.Modified, &l.ETag,
			&l.SupersededBy, &l.SupersededReason); err != nil {
			return err
		}
		g.logs[l.LogID] = &l
	}
	return rows.Err()
}

// logCache keeps the last few logs opened (their central directory, or a
// .json log's sample offsets), so the samples of one log open without
// reading it again. A log is keyed by its path and fingerprint: a file that
// changed is opened afresh.
type logCache struct {
	mu    sync.Mutex
	max   int
	order []string
	open  map[string]*cachedLog
	lanes map[string]chan struct{} // by path: the one read of that log in flight
	s3    *objstore.Client
	s3err error
	s3do  sync.Once

	timeout time.Duration                 // the longest a request waits for a read of a log
	wrap    func(io.ReaderAt) io.ReaderAt // tests: a slow file system (export_test.go)
}

type cachedLog struct {
	log  *evallog.Log
	refs int
	gone bool
}

// DefaultLogTimeout is how long a request waits at most for a read of a log
// (Options.LogTimeout).
const DefaultLogTimeout = 30 * time.Second

func newLogCache(n int, timeout time.Duration) *logCache {
	if timeout <= 0 {
		timeout = DefaultLogTimeout
	}
	return &logCache{max: n, open: map[string]*cachedLog{}, lanes: map[string]chan struct{}{}, timeout: timeout}
}

// sampleBytes reads the raw JSON of one sample member of a log, and says
// whether the log on disk still is the file the row was read from.
//
// A request waits for the read until its context ends (the reader went
// away) or c.timeout passes, never longer: a log on a file system or bucket
// that stops answering fails the request with a message, and the server
// stays up. A read blocked in the kernel cannot be interrupted, so it goes
// on in the background, and until it ends it is the only read of its log
// (lanes): requests for that log wait for their turn, each until its own
// deadline, and a stalled log holds one thread however often it is asked
// for.
func (c *logCache) sampleBytes(ctx context.Context, l *logRow, member string) (raw []byte, changed string, err error) {
	key, changed, err := c.fingerprint(l)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	lane := c.lane(l.Path)
	select {
	case lane <- struct{}{}:
	case <-ctx.Done():
		return nil, changed, c.late(ctx, l, true)
	}
	type result struct {
		raw []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-lane }()
		raw, err := c.read(key, l, member)
		done <- result{raw, err}
	}()
	select {
	case r := <-done:
		return r.raw, changed, r.err
	case <-ctx.Done():
		return nil, changed, c.late(ctx, l, false)
	}
}

// lane is the one-slot channel a read of the log at path holds.
func (c *logCache) lane(path string) chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.lanes[path]
	if ch == nil {
		ch = make(chan struct{}, 1)
		c.lanes[path] = ch
	}
	return ch
}

// late is the error of a request that stopped waiting for a read of l.
func (c *logCache) late(ctx context.Context, l *logRow, queued bool) error {
	what := "reading the log"
	if queued {
		what = "waiting for an earlier read of the log to end"
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s %s took longer than %s (a file system or object store that does not answer?); the server goes on, and the page shows what the tables hold", what, l.Path, c.timeout)
	}
	return fmt.Errorf("the request ended while %s %s", what, l.Path)
}

// read reads one member of a log, through the cache.
func (c *logCache) read(key string, l *logRow, member string) ([]byte, error) {
	cl, err := c.get(context.Background(), key, l)
	if err != nil {
		return nil, err
	}
	defer c.put(key, cl)
	for _, ref := range cl.log.Samples {
		if ref.Member == member {
			raw, err := ref.Bytes()
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", l.Path, member, err)
			}
			return raw, nil
		}
	}
	return nil, fmt.Errorf("%s has no member %s (the log changed since it was ingested?)", l.Path, member)
}

// fingerprint is the cache key of a log, and a note when the file is not the
// one ingested (its size or modification time differ from its row's).
func (c *logCache) fingerprint(l *logRow) (key, changed string, err error) {
	if objstore.IsURL(l.Path) {
		etag := ""
		if l.ETag != nil {
			etag = *l.ETag
		}
		return l.Path + "\x00" + etag, "", nil
	}
	fi, err := os.Stat(l.Path)
	if err != nil {
		return "", "", fmt.Errorf("the log %s cannot be read now: %w", l.Path, err)
	}
	if fi.Size() != l.Size || l.Modified != nil && fi.ModTime().UnixMicro() != l.Modified.UnixMicro() {
		changed = fmt.Sprintf("the log file changed since it was ingested (now %d bytes, modified %s; the row says %d bytes): what it holds now is shown, and may not be what the tables say",
			fi.Size(), fi.ModTime().UTC().Format(time.RFC3339), l.Size)
	}
	return fmt.Sprintf("%s\x00%d\x00%d", l.Path, fi.Size(), fi.ModTime().UnixNano()), changed, nil
}

func (c *logCache) get(ctx context.Context, key string, l *logRow) (*cachedLog, error) {
	c.mu.Lock()
	if cl := c.open[key]; cl != nil {
		cl.refs++
		c.touch(key)
		c.mu.Unlock()
		return cl, nil
	}
	c.mu.Unlock()
	log, err := c.openLog(ctx, l)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl := c.open[key]; cl != nil { // opened meanwhile by another request
		log.Close()
		cl.refs++
		c.touch(key)
		return cl, nil
	}
	cl := &cachedLog{log: log, refs: 1}
	c.open[key] = cl
	c.touch(key)
	for len(c.order) > c.max {
		old := c.order[0]
		c.order = c.order[1:]
		if o := c.open[old]; o != nil {
			delete(c.open, old)
			o.gone = true
			if o.refs == 0 {
				o.log.Close()
			}
		}
	}
	return cl, nil
}

func (c *logCache) put(key string, cl *cachedLog) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl.refs--
	if cl.gone && cl.refs == 0 {
		cl.log.Close()
	}
}

func (c *logCache) touch(key string) {
	for i, k := range c.order {
		if k == key {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	c.order = append(c.order, key)
}

func (c *logCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, cl := range c.open {
		cl.gone = true
		if cl.refs == 0 {
			cl.log.Close()
		}
		delete(c.open, k)
	}
	c.order = nil
}

// openLog opens a log without hashing it: an .eval's central directory and
// header only (for an object, through ranged GETs that must match the ETag
// the row kept); a .json log is scanned for its samples' offsets (an object
// is streamed once into a temporary file first, as ingest reads it).
func (c *logCache) openLog(ctx context.Context, l *logRow) (*evallog.Log, error) {
	if objstore.IsURL(l.Path) {
		cl, err := c.client(ctx)
		if err != nil {
			return nil, err
		}
		u, err := objstore.ParseURL(l.Path)
		if err != nil {
			return nil, err
		}
		o := objstore.Object{URL: l.Path, Bucket: u.Bucket, Key: u.Key, Size: l.Size}
		if l.ETag != nil {
			o.ETag = *l.ETag
		}
		// The log is read after the request that asked for it ends (the
		// cache keeps it), so its reads are not tied to that request.
		log, err := cl.OpenLog(context.WithoutCancel(ctx), o, evallog.Limits{}, objstore.HeaderOnly)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.Path, err)
		}
		return log, nil
	}
	// Only a regular file is read: a FIFO put where the log was would
	// block the open, and the read, for good.
	f, fi, err := evallog.OpenRegular(l.Path)
	if err != nil {
		return nil, fmt.Errorf("the log %s cannot be read now: %w", l.Path, err)
	}
	var r io.ReaderAt = f
	if c.wrap != nil {
		r = c.wrap(f)
	}
	log, err := evallog.OpenSource(evallog.Source{Name: l.Path, Size: fi.Size(), ReaderAt: r, Close: f.Close, NoHash: true}, evallog.Limits{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Path, err)
	}
	return log, nil
}

func (c *logCache) client(ctx context.Context) (*objstore.Client, error) {
	c.s3do.Do(func() { c.s3, c.s3err = objstore.New(ctx) })
	return c.s3, c.s3err
}
