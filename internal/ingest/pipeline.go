package ingest

// The decoding pipeline: files opened ahead, their samples decoded by a pool
// of workers, and the results taken back in file order by the writer
// (writer.go), with a bounded number of samples and raw bytes in flight.

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"empties/internal/evallog"
	"empties/internal/store"
)

// item is one step of the ordered stream the writer consumes: a file that
// could not be opened, the start of a file, one sample, or a file's end.
type item struct {
	path   string
	err    error // open failed
	log    *evallog.Log
	ctx    *logContext
	sample *job
	end    bool
}

type job struct {
	ref    evallog.SampleRef
	ctx    *logContext
	result chan jobResult
}

type jobResult struct {
	rows *sampleRows
	err  error
}

const (
	// samplesInFlight per worker bounds the samples between the dispatcher
	// and the writer. Only the ones a worker is decoding hold their raw
	// bytes; the queued ones are member refs and the finished ones their
	// extracted rows. A deep queue keeps both workers busy while the writer
	// waits, in order, on one large sample.
	samplesInFlight = 32
	// openAhead is how many files are opened (hashed, headers read) ahead of
	// the one being dispatched.
	openAhead = 2
)

// readConfig is what the pipeline reads with.
type readConfig struct {
	ds    *store.Dataset
	files []Fingerprint
	// starts gives the part number each big table's new files start at
	// (plan.carry); nil for a table written whole.
	starts  map[string]int
	remote  *remoteLogs // opens the s3:// URLs
	workers int
	spillAt int64
	lim     evallog.Limits
	prog    Progress
	log     io.Writer
}

// ingestFiles runs the pipeline: an opener opens files ahead (openFiles), a
// dispatcher hands their samples to a pool of decoders (decoders,
// dispatch); the writer takes results back in the same order (collect), so
// output order never depends on timing, and at most a bounded number of
// samples is in flight.
func ingestFiles(ctx context.Context, rc readConfig) (*Summary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inFlight := samplesInFlight * rc.workers
	order := make(chan item, inFlight)
	work := make(chan *job, inFlight)
	wg := decoders(ctx, rc.workers, work)
	go dispatch(ctx, rc.files, openFiles(ctx, rc.files, rc.remote, rc.lim), order, work)

	sk, err := openSinks(rc.ds, rc.starts)
	if err != nil {
		return nil, err
	}
	w := &writer{ds: rc.ds, sum: &Summary{Files: len(rc.files), Classes: map[string]int64{}}, prog: rc.prog, log: rc.log, sinks: sk, spillAt: rc.spillAt}
	return w.collect(ctx, cancel, order, wg)
}

// decoders starts n workers that decode the samples of work.
func decoders(ctx context.Context, n int, work <-chan *job) *sync.WaitGroup {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				j.result <- runJob(ctx, j)
			}
		}()
	}
	return &wg
}

// opened is a file the opener opened, or why it could not.
type opened struct {
	l   *evallog.Log
	err error
}

// openFiles reads headers, hashes and (for .json) sample offsets of the
// next files while the current one's samples are decoded.
func openFiles(ctx context.Context, files []Fingerprint, remote *remoteLogs, lim evallog.Limits) <-chan opened {
	openQ := make(chan opened, openAhead)
	go func() {
		defer close(openQ)
		for _, f := range files {
			l, err := remote.open(ctx, f.Path, lim)
			select {
			case openQ <- opened{l, err}:
			case <-ctx.Done():
				if l != nil {
					l.Close()
				}
				return
			}
		}
	}()
	return openQ
}

// dispatch puts each file's steps on order, in file order, and each sample
// also on work for the decoders.
func dispatch(ctx context.Context, files []Fingerprint, openQ <-chan opened, order chan<- item, work chan<- *job) {
	defer close(order)
	defer close(work)
	defer func() {
		// After cancellation: close what was opened ahead, without
		// waiting here on an open that may never return.
		go func() {
			for o := range openQ {
				if o.l != nil {
					o.l.Close()
				}
			}
		}()
	}()
	for _, f := range files {
		p := f.Path
		var o opened
		var ok bool
		select {
		case o, ok = <-openQ:
		case <-ctx.Done():
			return
		}
		if !ok {
			return
		}
		l, err := o.l, o.err
		if err != nil {
			if !send(ctx, order, item{path: p, err: err}) {
				return
			}
			continue
		}
		lc := newLogContext(f, l)
		if !send(ctx, order, item{path: p, log: l, ctx: lc}) {
			l.Close()
			return
		}
		for _, ref := range l.Samples {
			j := &job{ref: ref, ctx: lc, result: make(chan jobResult, 1)}
			if !send(ctx, order, item{path: p, sample: j}) {
				return
			}
			select {
			case work <- j:
			case <-ctx.Done():
				return
			}
		}
		if !send(ctx, order, item{path: p, end: true}) {
			return
		}
	}
}

// collect writes the steps of order as they come, cancelling the run on the
// first error, and waits for the decoders.
func (w *writer) collect(ctx context.Context, cancel context.CancelFunc, order <-chan item, wg *sync.WaitGroup) (*Summary, error) {
	var werr error
	for it := range order {
		if werr != nil || ctx.Err() != nil {
			// Drain without waiting on results: after cancellation a queued
			// sample may never have reached a worker.
			if it.end || it.err != nil {
				w.abort()
			}
			continue
		}
		if werr = w.handle(ctx, it); werr != nil {
			cancel()
		}
	}
	if !waitWorkers(wg, ctx) {
		if werr != nil {
			return nil, werr
		}
		return nil, fmt.Errorf("stopped with a sample still being read: %w", context.Canceled)
	}
	w.abort()
	if err := w.sinks.close(); err != nil && werr == nil {
		werr = err
	}
	if werr != nil {
		return nil, werr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return w.sum, nil
}

// workerGrace is how long a cancelled run waits for the decoders to stop.
const workerGrace = 2 * time.Second

// waitWorkers waits for the decoders; once ctx is cancelled, for at most
// workerGrace, since a worker may be blocked in a read that never returns
// (a stalled network file system). It reports whether they all stopped.
func waitWorkers(wg *sync.WaitGroup, ctx context.Context) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-ctx.Done():
	}
	select {
	case <-done:
		return true
	case <-time.After(workerGrace):
		return false
	}
}

func send(ctx context.Context, ch chan<- item, it item) bool {
	select {
	case ch <- it:
		return true
	case <-ctx.Done():
		if it.log != nil {
			it.log.Close()
		}
		return false
	}
}

// memberBuffers hold the raw bytes of the samples being decoded, one per
// worker at a time: allocating (and zeroing) a fresh buffer per sample cost
// more than inflating it. Buffers grown past maxPooledBuffer by a huge
// sample are left to the garbage collector.
var memberBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledBuffer = 64 << 20

var decodedSamples = sync.Pool{New: func() any { return new(evallog.DecodedSample) }}

// stallReads makes every sample read block as on a stalled file system,
// for the signal tests of the built binary: EMPTIES_TEST_STALL_READS names a
// file each stalled read creates first. Nothing else sets it.
var stallReads = os.Getenv("EMPTIES_TEST_STALL_READS")

func runJob(ctx context.Context, j *job) (res jobResult) {
	if stallReads != "" {
		os.WriteFile(stallReads, nil, 0o644)
		time.Sleep(time.Hour)
	}
	defer func() {
		if p := recover(); p != nil {
			res = jobResult{err: fmt.Errorf("internal error reading sample: %v", p)}
		}
	}()
	weight := min(j.ref.RawSize(), rawBytesInFlight)
	if err := rawBudget.Acquire(ctx, weight); err != nil {
		return jobResult{err: err} // interrupted
	}
	defer rawBudget.Release(weight)
	// The decoded sample refers into the buffer (its attachments and
	// message pool) until Release, so the buffer goes back to the pool only
	// after that; the rows copy what they keep of the decoded sample, which
	// is reused too. A large sample is decoded from its member's stream and
	// leaves the buffer as it was.
	bp := memberBuffers.Get().(*[]byte)
	defer memberBuffers.Put(bp)
	d := decodedSamples.Get().(*evallog.DecodedSample)
	defer decodedSamples.Put(d)
	defer d.Release()
	raw, err := d.DecodeRef(j.ref, (*bp)[:0], j.ctx.LegacyScoreName)
	if cap(raw) <= maxPooledBuffer {
		*bp = raw
	}
	if err != nil {
		return jobResult{err: err}
	}
	rows, err := extract(j.ctx, j.ref.Member, d.View())
	return jobResult{rows: rows, err: err}
}

// rawBudget bounds the raw sample bytes that all workers hold at once: a
// worker takes a sample's raw size from it (at most rawBytesInFlight) before
// reading the sample and gives it back when the rows exist. Samples of
// ordinary size (kilobytes to a few megabytes) never wait; two huge samples
// are not decoded at the same time, so one worker per CPU does not multiply
// the peak memory of the largest sample.
var rawBudget = semaphore.NewWeighted(rawBytesInFlight)

const rawBytesInFlight = 256 << 20

// openLog opens a log for reading; a variable so that tests count the
// files an ingest opens.
var openLog = evallog.OpenLimited

func newLogContext(f Fingerprint, l *evallog.Log) *logContext {
	h := l.Header
	lc := &logContext{
		LogID:  LogID(f.Path),
		EvalID: h.Eval.EvalID,
		Task:   h.Eval.Task,
		Model:  h.Eval.Model,
	}
	if f.ModTime != 0 {
		mt := f.ModTime
		lc.Modified = &mt
	}
	if f.ETag != "" {
		etag := f.ETag
		lc.ETag = &etag
	}
	lc.EvalMaxTokens = evalMaxTokens(h)
	lc.LegacyScoreName = legacyScoreName(h)
	return lc
}
