// Package ingest reads Inspect logs into the logs, replies, scores,
// model_calls and ingest_errors tables of a dataset, classifying every reply
// on the way. Ingest is its entry point; stages/ingestcmd is the command
// (flags, help, progress and the summary it prints).
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"empties/internal/cliutil"
	"empties/internal/duck"
	"empties/internal/evallog"
	"empties/internal/guard"
	"empties/internal/objstore"
	"empties/internal/store"
	"empties/schema"
)

// Config configures an ingest.
type Config struct {
	Paths   []string // files, folders and s3:// URLs
	Out     string   // dataset directory
	Workers int      // sample decoders; 0 = one per CPU
	// Compression of the Parquet pages (store.Compressions); "" means
	// store.DefaultCompression.
	Compression string
	// SpillBytes is how many bytes of one log's rows are held in memory
	// before they go to a staging file; 0 means DefaultSpillBytes.
	SpillBytes int64
	// AllAttempts counts every file, superseded attempts included
	// (internal/logset decides otherwise).
	AllAttempts bool
	// MaxMemberBytes caps one zip member (or .json sample) inflated; a log
	// holding a larger one fails, naming it. 0 means
	// evallog.DefaultMaxMember.
	MaxMemberBytes int64
	// Full reads every file again, even into a dataset that holds their
	// rows; by default only new and changed files are read (incremental.go).
	Full bool
	// Compact rewrites every part file of replies, scores and model_calls
	// of an incremental ingest in the order a full ingest writes; by
	// default only a table's small parts, once there are too many
	// (compactTables).
	Compact bool
	// Progress hears of the files and samples as they are read; nil: no one.
	Progress Progress
	// Log receives each error and note as it is found, a line each (the
	// command's stderr); nil discards them.
	Log io.Writer
}

// Progress is told of the reading as it goes (the command draws it).
type Progress interface {
	Start(files int)  // the number of files to read is known
	Sample()          // a sample's rows are held
	File(bytes int64) // a file is done: read (its size) or failed (0)
	Clear()           // a line is about to go to Config.Log, or the reading is over
}

type noProgress struct{}

func (noProgress) Start(int)  {}
func (noProgress) Sample()    {}
func (noProgress) File(int64) {}
func (noProgress) Clear()     {}

// DefaultSpillBytes bounds the rows of one log held in memory.
const DefaultSpillBytes = 256 << 20

// Summary counts what the reading did.
type Summary struct {
	Files, Failed, Skipped int
	SkippedFiles           []Skipped // each file found and not read, with why
	// Missing counts the samples a log's summaries list without a member.
	Missing int
	// Duplicates counts the sample members not read because another member
	// of their log holds the same sample (id and epoch).
	Duplicates int
	// Kept counts the ingest_errors rows of files unchanged since the last
	// ingest, kept with them (samples of readable files that could not be
	// read then, and cannot now).
	Kept    int
	Samples int64
	Bytes   int64
	Classes map[string]int64
	Errors  []schema.IngestError
	Elapsed time.Duration
	// Fetched counts the GETs made of s3:// objects and the bytes they
	// returned.
	Fetched objstore.Stats

	logs []schema.Log // written once the set rules have run
}

// Result is what an ingest did.
type Result struct {
	Summary
	Dir string // the dataset
	// Incremental counts the files of an ingest into a dataset that held
	// an ingest's tables (Files then counts the new and changed ones only);
	// nil when every file was read.
	Incremental *Incremental
	Compacted   Compaction
	// Committed is false when nothing changed: the dataset is as it was.
	Committed bool
	// Dropped names the later stages' tables removed, computed from the
	// old rows.
	Dropped     []string
	Set         SetSummary
	AllAttempts bool
}

// Partial is the error of a run that committed its tables but could not
// read every file or sample (exit code 1), or nil.
func (r *Result) Partial() error {
	var msgs []string
	if r.Failed > 0 {
		msgs = append(msgs, fmt.Sprintf("%d of %d files could not be read; their samples are not in the tables", r.Failed, r.Files))
	}
	if r.Missing > 0 {
		msgs = append(msgs, fmt.Sprintf("%d samples listed in their logs' summaries have no member to read", r.Missing))
	}
	if r.Duplicates > 0 {
		msgs = append(msgs, fmt.Sprintf("%d sample members hold a sample that another member of their log holds, and are not read", r.Duplicates))
	}
	if r.Kept > 0 {
		msgs = append(msgs, fmt.Sprintf("%d samples of files unchanged since the last ingest could not be read then", r.Kept))
	}
	if len(msgs) > 0 {
		return &cliutil.PartialError{Msg: strings.Join(msgs, "; ") + " (listed above and in ingest_errors)"}
	}
	return nil
}

// Build ingests cfg.Paths into cfg.Out and returns the error the command
// exits with: Ingest's, or Partial's. The tests of the later stages build
// their datasets with it.
func Build(ctx context.Context, cfg Config) error {
	res, err := Ingest(ctx, cfg)
	if err != nil {
		return err
	}
	return res.Partial()
}

// Ingest reads cfg.Paths into the dataset cfg.Out: the files found
// (findLogs), only the new and changed ones into a dataset an ingest wrote
// (planRead), through the decoding pipeline (ingestFiles); then the log set
// is decided, the tables compacted and committed in one switch (settle).
// A file or sample that cannot be read is in the result (Partial), not an
// error.
func Ingest(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Progress == nil {
		cfg.Progress = noProgress{}
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	in, err := findLogs(ctx, cfg.Paths, cfg.Out)
	if err != nil {
		return nil, err
	}
	ds, err := store.Create(store.Stage{Name: schema.StageIngest, Views: duck.ViewFile}, cfg.Out, cfg.Paths...)
	if err != nil {
		return nil, err
	}
	defer ds.Close()
	if cfg.Compression != "" {
		if err := ds.SetCompression(cfg.Compression); err != nil {
			return nil, err
		}
	}

	start := time.Now()
	p, err := planRead(ds, in.fps, cfg)
	if err != nil {
		return nil, err
	}
	toRead, starts := in.fps, map[string]int(nil)
	if p != nil {
		toRead = p.read
		if starts, err = p.carry(ds); err != nil {
			return nil, err
		}
	}
	cfg.Progress.Start(len(toRead))
	spill := cfg.SpillBytes
	if spill <= 0 {
		spill = DefaultSpillBytes
	}
	sum, err := ingestFiles(ctx, readConfig{ds: ds, files: toRead, starts: starts, remote: in.remote, workers: workers(cfg.Workers), spillAt: spill,
		lim: evallog.Limits{MaxMember: cfg.MaxMemberBytes, HashBeside: true}, prog: cfg.Progress, log: cfg.Log})
	cfg.Progress.Clear()
	if err != nil {
		return nil, err
	}
	in.remote.report(sum, cfg.Log)
	sum.Skipped, sum.SkippedFiles = len(in.skipped), in.skipped
	res, err := settle(ctx, ds, p, sum, cfg)
	if err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// found is what findLogs found: the files to consider and those skipped.
type found struct {
	fps     []Fingerprint
	skipped []Skipped
	remote  *remoteLogs
}

// findLogs lists the logs under paths, local and s3://; none is an error
// naming why each path gave none.
func findLogs(ctx context.Context, paths []string, out string) (found, error) {
	// The dataset folder is checked before the logs are listed: it may not
	// be, hold or lie inside them (store.Create checks it again, locked).
	if _, err := guard.CheckDataset(out, guard.Rules{Avoid: paths}); err != nil {
		return found{}, err
	}
	local, urls := splitURLs(paths)
	files, skipped, err := discover(local)
	if err != nil {
		return found{}, err
	}
	remote, err := discoverRemote(ctx, urls)
	if err != nil {
		return found{}, err
	}
	files, skipped = remote.merge(files, skipped)
	if len(files) == 0 {
		var why strings.Builder
		for _, e := range remote.errs {
			fmt.Fprintf(&why, "\n  %s", e.Error)
		}
		for _, s := range skipped {
			fmt.Fprintf(&why, "\n  skipped %s: %s", s.Path, s.Reason)
		}
		if len(remote.errs) > 0 { // not a usage error: the storage refused
			return found{}, fmt.Errorf("ingest: no logs could be listed under %s%s", strings.Join(paths, ", "), why.String())
		}
		return found{}, cliutil.Usagef("ingest: no .eval or .json logs found under %s%s", strings.Join(paths, ", "), why.String())
	}
	return found{fps: remote.fingerprints(fingerprints(files)), skipped: skipped, remote: remote}, nil
}

// planRead decides which files an ingest into ds reads: nil, every file,
// with cfg.Full or when ds holds no complete ingest to build on (said in a
// note).
func planRead(ds *store.Dataset, fps []Fingerprint, cfg Config) (*plan, error) {
	if cfg.Full {
		return nil, nil
	}
	p, why, err := planIncremental(ds, fps)
	if err != nil {
		return nil, err
	}
	if why != "" {
		fmt.Fprintf(cfg.Log, "note: reading every file: %s\n", why)
	}
	return p, nil
}

// settle decides the log set over every logs row (kept and read), compacts
// an incremental ingest's tables when due, and commits the tables, unless
// nothing changed.
func settle(ctx context.Context, ds *store.Dataset, p *plan, sum *Summary, cfg Config) (*Result, error) {
	res := &Result{Dir: ds.Dir, AllAttempts: cfg.AllAttempts}
	rows := sum.logs
	if p != nil {
		res.Incremental = &p.Incremental
		rows = mergeLogs(p.kept, sum.logs)
		for _, e := range p.keptErrors {
			sum.Kept++
			where := e.Path
			if e.Member != nil {
				where += ": " + *e.Member
			}
			fmt.Fprintf(cfg.Log, "error: %s: %s (the file is unchanged since the last ingest)\n", where, e.Error)
		}
		sum.Errors = mergeErrors(p.keptErrors, sum.Errors)
	}
	// The set rules need every header, so the logs table is written last.
	res.Set = applyLogSet(rows, cfg.AllAttempts)
	changed, commit := true, true
	if p != nil {
		changed, commit = p.changes(rows, sum.Errors)
	}
	if p != nil && (commit || cfg.Compact) { // nothing to commit: nothing compacted, unless asked
		var err error
		if res.Compacted, err = compactTables(ctx, ds, rows, cfg.Compact); err != nil {
			return nil, err
		}
		commit = commit || len(res.Compacted) > 0
	}
	if commit {
		if err := writeLogs(ds, rows); err != nil {
			return nil, err
		}
		var err error
		if res.Dropped, err = finish(ctx, ds, sum, changed); err != nil {
			return nil, err
		}
	}
	res.Committed = commit
	res.Summary = *sum
	return res, nil
}

func workers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

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

// writer collects the rows of the current file and hands them to the table
// sinks only once the whole file has been read, so a file that fails
// part-way leaves nothing behind. The rows are small next to the raw log (no
// events, no inputs); past spillAt bytes a log's rows go to staging files,
// so memory stays bounded however many samples one log holds.
type writer struct {
	ds      *store.Dataset
	sum     *Summary
	prog    Progress
	log     io.Writer // Config.Log
	sinks   *sinks
	spillAt int64

	cur     *evallog.Log
	ctx     *logContext
	failed  bool
	replies []schema.Reply
	scores  []schema.Score
	calls   []schema.ModelCall
	held    int64 // approximate bytes of the rows held in memory
	spilled *spill
	nRows   int64            // replies of this log, held or spilled
	classes map[string]int64 // of this log
	keys    sampleKeys       // of this log
}

// spill holds the staging files of one log's rows that did not fit in memory.
type spill struct {
	replies *store.Writer[schema.Reply]
	scores  *store.Writer[schema.Score]
	calls   *store.Writer[schema.ModelCall]
}

// sinks write the three big tables concurrently.
type sinks struct {
	replies *store.Sink[schema.Reply]
	scores  *store.Sink[schema.Score]
	calls   *store.Sink[schema.ModelCall]
}

func openSinks(ds *store.Dataset, starts map[string]int) (*sinks, error) {
	var s sinks
	var err error
	if s.replies, err = store.SinkOf(ds, schema.Replies, starts["replies"]); err != nil {
		return nil, err
	}
	if s.scores, err = store.SinkOf(ds, schema.Scores, starts["scores"]); err != nil {
		return nil, err
	}
	if s.calls, err = store.SinkOf(ds, schema.ModelCalls, starts["model_calls"]); err != nil {
		return nil, err
	}
	return &s, nil
}

// close flushes every sink and returns the first error.
func (s *sinks) close() error {
	var first error
	for _, c := range []func() error{s.replies.Close, s.scores.Close, s.calls.Close} {
		if err := c(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (w *writer) handle(ctx context.Context, it item) error {
	switch {
	case it.err != nil:
		w.fail(it.path, "", it.err)
		w.prog.File(0)
	case it.log != nil:
		w.cur, w.ctx, w.failed = it.log, it.ctx, false
		w.replies, w.scores, w.calls, w.held, w.nRows = nil, nil, nil, 0, 0
		w.classes = map[string]int64{}
		w.keys = newSampleKeys(it.log)
		w.missing(it.path, it.log.Missing)
	case it.sample != nil:
		var res jobResult
		select {
		case res = <-it.sample.result:
		case <-ctx.Done():
			return ctx.Err()
		}
		if w.failed {
			return nil
		}
		if res.err != nil {
			w.fail(it.path, it.sample.ref.Member, res.err)
			return nil
		}
		r := res.rows
		if err := w.keys.take(it.sample.ref.Member, r.Reply.SampleID, r.Reply.Epoch); err != nil {
			w.duplicate(it.path, it.sample.ref.Member, err)
			return nil
		}
		n := r.size()
		if w.held > 0 && w.held+n > w.spillAt {
			// The rows held before this sample go to staging files; this
			// sample's are in memory already, and spilling them alone (one
			// huge reply) would only copy them out and back.
			if err := w.spill(); err != nil {
				return err
			}
		}
		w.replies = append(w.replies, r.Reply)
		w.scores = append(w.scores, r.Scores...)
		w.calls = append(w.calls, r.Calls...)
		w.nRows++
		w.classes[r.Reply.Class]++
		w.held += n
		w.prog.Sample()
	case it.end:
		return w.endFile()
	}
	return nil
}

func (w *writer) fail(path, member string, err error) {
	w.failed = true
	w.sum.Failed++
	e := schema.IngestError{Path: path, Member: nonEmpty(member), Error: err.Error()}
	w.sum.Errors = append(w.sum.Errors, e)
	w.prog.Clear()
	if member != "" {
		fmt.Fprintf(w.log, "error: %s: %s: %v\n", path, member, err)
	} else {
		fmt.Fprintf(w.log, "error: %s: %v\n", path, err)
	}
}

// missing reports the samples a log's summaries list without a member, one
// ingest_errors row each, naming the sample and the member expected.
//
// The log's other samples are still ingested, unlike the samples of a file
// that cannot be read, which is left out whole. An unreadable file gives no
// reason to trust any of its rows; a missing member is a hole in a readable
// log, whose every other member reads as inspect_ai reads it (read_eval_log
// returns them and never looks at the summaries). Leaving them out would
// drop samples the user's own reader shows, and leaving the hole unreported
// would lose a sample silently: so every present sample is a row, the absent
// one an error row, and the exit code is 1.
func (w *writer) missing(path string, missing []evallog.MissingSample) {
	for _, m := range missing {
		err := fmt.Errorf("sample %s epoch %d is listed in %s but the log has no member %s: the sample cannot be read", m.ID, m.Epoch, m.Source, m.Member)
		w.sum.Missing++
		w.sum.Errors = append(w.sum.Errors, schema.IngestError{Path: path, Member: nonEmpty(m.Member), Error: err.Error()})
		w.prog.Clear()
		fmt.Fprintf(w.log, "error: %s: %s: %v\n", path, m.Member, err)
	}
}

// duplicate reports a sample member whose sample another member of the log
// holds: an ingest_errors row naming it, and no rows (sampleKeys).
func (w *writer) duplicate(path, member string, err error) {
	w.sum.Duplicates++
	w.sum.Errors = append(w.sum.Errors, schema.IngestError{Path: path, Member: nonEmpty(member), Error: err.Error()})
	w.prog.Clear()
	fmt.Fprintf(w.log, "error: %s: %s: %v\n", path, member, err)
}

func (w *writer) endFile() error {
	l := w.cur
	w.cur = nil
	defer l.Close()
	if !w.failed {
		// An object's hash comes from the download its sample reads fed.
		if err := l.FinishHash(); err != nil {
			w.fail(l.Path, "", err)
		}
	}
	if w.failed {
		w.drop()
		w.prog.File(0)
		return nil
	}
	w.sum.logs = append(w.sum.logs, logRow(w.ctx, l, w.nRows))
	if w.spilled != nil {
		if err := w.unspill(); err != nil {
			return err
		}
	}
	w.sinks.replies.Write(w.replies)
	w.sinks.scores.Write(w.scores)
	w.sinks.calls.Write(w.calls)
	w.sum.Samples += w.nRows
	w.sum.Bytes += l.Size
	for c, n := range w.classes {
		w.sum.Classes[c] += n
	}
	w.replies, w.scores, w.calls = nil, nil, nil
	w.prog.File(l.Size)
	return nil
}

// spill moves the rows held in memory to the log's staging files.
func (w *writer) spill() error {
	if w.spilled == nil {
		var s spill
		var err error
		if s.replies, err = store.NewWriter[schema.Reply](w.ds, "spill-replies"); err != nil {
			return err
		}
		if s.scores, err = store.NewWriter[schema.Score](w.ds, "spill-scores"); err != nil {
			return err
		}
		if s.calls, err = store.NewWriter[schema.ModelCall](w.ds, "spill-model_calls"); err != nil {
			return err
		}
		w.spilled = &s
	}
	s := w.spilled
	for _, err := range []error{s.replies.Write(w.replies...), s.scores.Write(w.scores...), s.calls.Write(w.calls...)} {
		if err != nil {
			return err
		}
	}
	w.replies, w.scores, w.calls, w.held = nil, nil, nil, 0
	return nil
}

// unspill streams a finished log's spilled rows into the sinks, in order,
// before the rows still in memory.
func (w *writer) unspill() error {
	s := w.spilled
	w.spilled = nil
	var finished []func() error // each spilled file's removal, once Finish closed it
	defer func() {
		for _, remove := range finished {
			remove()
		}
	}()
	p, err := s.replies.Finish()
	finished = append(finished, s.replies.RemoveFinished)
	if err == nil {
		err = store.ReadFile(p, func(rows []schema.Reply) error { w.sinks.replies.Write(slices.Clone(rows)); return nil })
	}
	if err != nil {
		return err
	}
	p, err = s.scores.Finish()
	finished = append(finished, s.scores.RemoveFinished)
	if err == nil {
		err = store.ReadFile(p, func(rows []schema.Score) error { w.sinks.scores.Write(slices.Clone(rows)); return nil })
	}
	if err != nil {
		return err
	}
	p, err = s.calls.Finish()
	finished = append(finished, s.calls.RemoveFinished)
	if err == nil {
		err = store.ReadFile(p, func(rows []schema.ModelCall) error { w.sinks.calls.Write(slices.Clone(rows)); return nil })
	}
	return err
}

// drop forgets the rows of the current file, held or spilled.
func (w *writer) drop() {
	w.replies, w.scores, w.calls, w.held = nil, nil, nil, 0
	if s := w.spilled; s != nil {
		s.replies.Discard()
		s.scores.Discard()
		s.calls.Discard()
		w.spilled = nil
	}
}

// abort drops the rows of an unfinished file (on cancellation).
func (w *writer) abort() {
	w.drop()
	if w.cur != nil {
		w.cur.Close()
		w.cur = nil
	}
}

// finish writes ingest_errors and makes the new tables, with the DuckDB
// view file, the dataset's current generation. With changed, the later
// stages' tables are left out of it; it returns their names.
func finish(ctx context.Context, ds *store.Dataset, sum *Summary, changed bool) ([]string, error) {
	errs, err := store.WriterOf(ds, schema.IngestErrors)
	if err != nil {
		return nil, err
	}
	if err := errs.Write(sum.Errors...); err != nil {
		return nil, err
	}
	if err := errs.Keep(ds); err != nil {
		return nil, err
	}
	if err := store.MergeTable(ds, schema.IngestErrors); err != nil {
		return nil, err
	}
	// Every table computed from the rows a new ingest replaces is removed
	// (schema.KeptWhenRepliesChange: ingest's own and exposure stay): run
	// the later stages again.
	var dropped []string
	if changed {
		dropped = store.TablesExcept(ds.Dir, schema.KeptWhenRepliesChange()...)
		if err := ds.Drop(dropped...); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err // interrupted: the current generation stays as it was
	}
	// One switch: the tables, the drops and the view file (store.Commit).
	return dropped, ds.Commit()
}

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

// LogID is the stable key of a log file: a hash of its absolute path.
func LogID(absPath string) string {
	s := sha256.Sum256([]byte(absPath))
	return hex.EncodeToString(s[:8])
}
