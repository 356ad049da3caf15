package objstore

import (
	"container/list"
	"context"
	"io"
	"sync"
)

const (
	// blockSize is the unit small reads are fetched and cached in.
	blockSize = 64 << 10
	// readAhead is how many blocks a small read that continues the previous
	// one fetches: archive/zip reads the central directory 4 KB at a time.
	// Any other small read (the magic number, a member's 30-byte local
	// header) fetches only its own blocks.
	readAhead = 4
	// directRead is the size from which a read goes to the server as it is,
	// in one GET, past the cache: a member's compressed bytes.
	directRead = 2 * blockSize
	// cacheBlocks bounds the cache of one reader (16 MiB).
	cacheBlocks = 256
)

// Reader reads one object with ranged GETs; it is an io.ReaderAt safe for
// concurrent use, so the members of one log are read in parallel by the
// ingest workers. Small reads are served from a bounded cache of aligned
// blocks, fetched with read-ahead and missing runs coalesced into one GET;
// a large read is one GET of exactly its range.
type Reader struct {
	c   *Client
	obj Object
	ctx context.Context

	mu     sync.Mutex
	blocks map[int64]*list.Element // block index -> element of lru
	lru    *list.List              // of *block, most recent first
	next   int64                   // the block after the last one fetched
}

type block struct {
	idx  int64
	data []byte
}

// Open returns a Reader of the object as listed: a read of an object that
// has changed since (another ETag) fails.
func (c *Client) Open(ctx context.Context, o Object) *Reader {
	return &Reader{c: c, obj: o, ctx: ctx, blocks: map[int64]*list.Element{}, lru: list.New()}
}

// Size is the object's size as listed.
func (r *Reader) Size() int64 { return r.obj.Size }

// ReadAt reads len(p) bytes at off, as io.ReaderAt does.
func (r *Reader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, io.ErrUnexpectedEOF
	}
	if off >= r.obj.Size {
		return 0, io.EOF
	}
	want := p
	var short error
	if end := off + int64(len(p)); end > r.obj.Size {
		want, short = p[:r.obj.Size-off], io.EOF
	}
	if len(want) == 0 {
		return 0, short
	}
	if len(want) >= directRead {
		if err := r.c.get(r.ctx, r.obj, want, off); err != nil {
			return 0, err
		}
		return len(want), short
	}
	first, last := off/blockSize, (off+int64(len(want))-1)/blockSize
	if err := r.fill(first, last); err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for i := first; i <= last; i++ {
		e, ok := r.blocks[i]
		if !ok { // evicted by a concurrent read since fill: fetch again
			r.mu.Unlock()
			err := r.fill(i, i)
			r.mu.Lock()
			if err != nil {
				return n, err
			}
			if e, ok = r.blocks[i]; !ok {
				return n, io.ErrUnexpectedEOF
			}
		}
		b := e.Value.(*block)
		r.lru.MoveToFront(e)
		start := max(off+int64(n)-i*blockSize, 0)
		n += copy(want[n:], b.data[start:])
	}
	return n, short
}

// fill makes blocks first..last present, fetching every missing run in one
// GET, with up to readAhead blocks in all when the run continues the last
// one fetched and the blocks after it are missing too.
func (r *Reader) fill(first, last int64) error {
	nBlocks := (r.obj.Size + blockSize - 1) / blockSize
	r.mu.Lock()
	lo := int64(-1)
	for i := first; i <= last; i++ {
		if _, ok := r.blocks[i]; !ok {
			lo = i
			break
		}
	}
	if lo < 0 {
		r.mu.Unlock()
		return nil
	}
	hi := last
	ahead := int64(1)
	if lo == r.next {
		ahead = readAhead
	}
	for hi+1 < nBlocks && hi+1 < lo+ahead {
		if _, ok := r.blocks[hi+1]; ok {
			break
		}
		hi++
	}
	r.mu.Unlock()

	start, end := lo*blockSize, min((hi+1)*blockSize, r.obj.Size)
	buf := make([]byte, end-start)
	if err := r.c.get(r.ctx, r.obj, buf, start); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next = hi + 1
	for i := lo; i <= hi; i++ {
		if _, ok := r.blocks[i]; ok {
			continue
		}
		b := &block{idx: i, data: buf[(i-lo)*blockSize : min((i-lo+1)*blockSize, int64(len(buf)))]}
		r.blocks[i] = r.lru.PushFront(b)
	}
	for r.lru.Len() > cacheBlocks {
		e := r.lru.Back()
		r.lru.Remove(e)
		delete(r.blocks, e.Value.(*block).idx)
	}
	// blocks before lo in [first, last] were present; a later missing run
	// in the range is fetched by the next call
	if hi < last {
		return r.fill(hi+1, last)
	}
	return nil
}
