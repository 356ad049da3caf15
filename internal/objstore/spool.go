package objstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"

	"empties/internal/guard"
)

// downloadChunk is how much of the download is written, hashed and made
// readable at a time.
const downloadChunk = 1 << 20

// prefetchBelow is the size under which an object's download starts as soon
// as it is open: the ingest opens logs ahead of the one it decodes, and
// their downloads then overlap its decoding. A larger object's download
// starts at its first sample read, so that a log opened ahead costs no
// temporary disk of its size yet. A variable for the tests.
var prefetchBelow int64 = 64 << 20

// spool reads one .eval object in full, fetching each byte once: the log's
// SHA-256 (logs.sha256) needs every byte in order, and the members are read
// in the order the ingest wants them (by epoch and id), not the order they
// are stored in, so the bytes are kept on disk between the two.
//
// While the log opens, a read is a ranged GET, block-aligned with
// read-ahead as Reader's, into an unlinked temporary file: the magic number
// at the front, then the central directory, header and summaries at the
// back. After (sequential), the download: the rest of the object, in order,
// in one GET per run the open did not fetch (usually one), hashed as it
// arrives and written to the same file; the runs the open fetched are
// hashed from the file, not fetched again. A read is served from the file
// as soon as the download covers it, waiting until then; many readers wait
// and read at once.
//
// Memory stays bounded whatever the object's size; disk does not: the file
// grows to the object's size, and goes when the log is closed.
type spool struct {
	c      *Client
	obj    Object
	ctx    context.Context // the caller's, and Close's cancel
	cancel context.CancelFunc
	f      *os.File

	mu      sync.Mutex
	cond    *sync.Cond
	have    []span // what f holds: sorted, disjoint, not adjacent
	next    int64  // the block after the last ranged fetch, for read-ahead
	waiting bool   // sequential: a miss waits on the download
	started bool
	done    chan struct{} // closed when the download has ended
	sum     string
	err     error // the download's
}

type span struct{ start, end int64 }

// openSpool creates the temporary file an object is read into.
func (c *Client) openSpool(ctx context.Context, o Object) (*spool, error) {
	f, err := guard.Unlinked("empties-s3-*.eval") // nothing is left behind however the run ends
	if err != nil {
		return nil, fmt.Errorf("%s: %w (an .eval object is downloaded into a temporary file while it is read: set TMPDIR to a folder with room for it)", o.URL, err)
	}
	s := &spool{c: c, obj: o, f: f, done: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.cond = sync.NewCond(&s.mu)
	context.AfterFunc(s.ctx, func() { // wake the reads waiting on the download
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	return s, nil
}

// sequential ends the open: from now on a read that misses waits on the
// download, which starts now for an object under prefetchBelow, else with
// the first such read.
func (s *spool) sequential() {
	s.mu.Lock()
	s.waiting = true
	if s.obj.Size < prefetchBelow {
		s.start()
	}
	s.mu.Unlock()
}

// ReadAt reads len(p) bytes at off, as io.ReaderAt does; it is safe for
// concurrent use.
func (s *spool) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, io.ErrUnexpectedEOF
	}
	size := s.obj.Size
	if off >= size {
		return 0, io.EOF
	}
	want := p
	var short error
	if off+int64(len(p)) > size {
		want, short = p[:size-off], io.EOF
	}
	if len(want) == 0 {
		return 0, short
	}
	end := off + int64(len(want))
	for {
		s.mu.Lock()
		switch {
		case s.covers(off, end):
			s.mu.Unlock()
			if _, err := s.f.ReadAt(want, off); err != nil {
				return 0, fmt.Errorf("%s: reading the temporary copy: %w", s.obj.URL, err)
			}
			return len(want), short
		case s.ctx.Err() != nil:
			s.mu.Unlock()
			return 0, s.ctx.Err()
		case s.err != nil:
			err := s.err
			s.mu.Unlock()
			return 0, err
		case !s.waiting:
			s.mu.Unlock()
			if err := s.fetch(off, end); err != nil {
				return 0, err
			}
		default:
			s.start()
			s.cond.Wait()
			s.mu.Unlock()
		}
	}
}

// Hash returns the SHA-256 of the whole object, downloading what no read
// has needed yet.
func (s *spool) Hash() (string, error) {
	s.mu.Lock()
	s.start()
	s.mu.Unlock()
	<-s.done // the download stops when s.ctx is done
	if s.err != nil {
		return "", s.err
	}
	return s.sum, nil
}

// Close stops the download and removes the temporary file.
func (s *spool) Close() error {
	s.cancel()
	s.mu.Lock()
	started := s.started
	s.mu.Unlock()
	if started {
		<-s.done
	}
	return s.f.Close()
}

// fetch makes [off, end) present with ranged GETs of its missing runs,
// widened as Reader.fill widens a read: whole blocks, with read-ahead when
// it continues the previous fetch; a large read is fetched as it is.
func (s *spool) fetch(off, end int64) error {
	s.mu.Lock()
	lo, hi := off, end
	if end-off < directRead {
		first, last := off/blockSize, (end-1)/blockSize
		if first == s.next {
			last = max(last, first+readAhead-1)
		}
		lo, hi = first*blockSize, min((last+1)*blockSize, s.obj.Size)
		s.next = last + 1
	}
	missing := s.gaps(lo, hi)
	s.mu.Unlock()
	for _, g := range missing {
		body, err := s.c.getRange(s.ctx, s.obj, g.start, g.end-g.start)
		if err != nil {
			return err
		}
		n, err := io.Copy(io.NewOffsetWriter(s.f, g.start), io.LimitReader(body, g.end-g.start))
		body.Close()
		if err == nil && n < g.end-g.start {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return s.describe(g, err)
		}
		s.mu.Lock()
		s.add(g)
		s.mu.Unlock()
	}
	return nil
}

// start starts the download once; s.mu is held.
func (s *spool) start() {
	if !s.started {
		s.started = true
		go s.download()
	}
}

// download reads the object front to back into the file and the hash: the
// runs no read has fetched from the server, the others from the file.
func (s *spool) download() {
	defer close(s.done)
	err := s.copyAll()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
	s.cond.Broadcast()
}

func (s *spool) copyAll() error {
	h := sha256.New()
	buf := make([]byte, downloadChunk)
	size := s.obj.Size
	for pos := int64(0); pos < size; {
		s.mu.Lock()
		run, have := s.runAt(pos)
		s.mu.Unlock()
		if have {
			for pos < run.end {
				p := buf[:min(int64(len(buf)), run.end-pos)]
				if _, err := s.f.ReadAt(p, pos); err != nil {
					return fmt.Errorf("%s: reading the temporary copy: %w", s.obj.URL, err)
				}
				h.Write(p)
				pos += int64(len(p))
				if err := s.ctx.Err(); err != nil {
					return err
				}
			}
			continue
		}
		body, err := s.c.getRange(s.ctx, s.obj, run.start, run.end-run.start)
		if err != nil {
			return err
		}
		for pos < run.end {
			p := buf[:min(int64(len(buf)), run.end-pos)]
			if _, err := io.ReadFull(body, p); err != nil {
				body.Close()
				return s.describe(span{pos, run.end}, err)
			}
			if _, err := s.f.WriteAt(p, pos); err != nil {
				body.Close()
				return fmt.Errorf("%s: writing the temporary copy: %w (an .eval object is downloaded into a temporary file while it is read: set TMPDIR to a folder with room for it)", s.obj.URL, err)
			}
			h.Write(p)
			s.mu.Lock()
			s.add(span{pos, pos + int64(len(p))})
			s.cond.Broadcast()
			s.mu.Unlock()
			pos += int64(len(p))
			if downloadHook != nil {
				downloadHook(pos)
			}
		}
		body.Close()
	}
	s.sum = hex.EncodeToString(h.Sum(nil))
	return nil
}

// downloadHook, when set (by tests), is called after each chunk the
// download writes, with how far it has got.
var downloadHook func(pos int64)

func (s *spool) describe(g span, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = fmt.Errorf("%w: the object is shorter than listed; it changed while being read: ingest it again", err)
	}
	return fmt.Errorf("%s: reading bytes %d-%d: %w", s.obj.URL, g.start, g.end-1, err)
}

// covers reports whether the file holds [off, end); s.mu is held.
func (s *spool) covers(off, end int64) bool {
	i := sort.Search(len(s.have), func(i int) bool { return s.have[i].end > off })
	return i < len(s.have) && s.have[i].start <= off && s.have[i].end >= end
}

// runAt returns the run of what the file holds that starts at pos (have),
// or else the run it lacks from pos to what it holds next; s.mu is held.
func (s *spool) runAt(pos int64) (span, bool) {
	i := sort.Search(len(s.have), func(i int) bool { return s.have[i].end > pos })
	switch {
	case i == len(s.have):
		return span{pos, s.obj.Size}, false
	case s.have[i].start <= pos:
		return span{pos, s.have[i].end}, true
	default:
		return span{pos, s.have[i].start}, false
	}
}

// gaps returns the runs of [lo, hi) the file lacks; s.mu is held.
func (s *spool) gaps(lo, hi int64) []span {
	var out []span
	for pos := lo; pos < hi; {
		run, have := s.runAt(pos)
		run.end = min(run.end, hi)
		if !have {
			out = append(out, run)
		}
		pos = run.end
	}
	return out
}

// add records that the file holds g, merging it with its neighbours; s.mu
// is held.
func (s *spool) add(g span) {
	i := sort.Search(len(s.have), func(i int) bool { return s.have[i].end >= g.start })
	j := i
	for j < len(s.have) && s.have[j].start <= g.end {
		g.start, g.end = min(g.start, s.have[j].start), max(g.end, s.have[j].end)
		j++
	}
	s.have = append(s.have[:i], append([]span{g}, s.have[j:]...)...)
}
