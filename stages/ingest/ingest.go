// Package ingest is the first stage: it reads Inspect logs into the logs,
// replies, scores, model_calls and ingest_errors tables, classifying every
// reply on the way.
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v3"
	"golang.org/x/sync/semaphore"

	"empties/internal/classify"
	"empties/internal/cliutil"
	_ "empties/internal/duck" // writes the view file of every generation store commits
	"empties/internal/evallog"
	"empties/internal/guard"
	"empties/internal/objstore"
	"empties/internal/store"
	"empties/schema"
)

// Options configure an ingest run.
type Options struct {
	Paths    []string // files and folders
	Out      string   // dataset directory
	Workers  int      // sample decoders; 0 = one per CPU
	Progress string   // auto (on a terminal), always, never
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
}

// DefaultSpillBytes bounds the rows of one log held in memory.
const DefaultSpillBytes = 256 << 20

// Command returns the `ingest` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:      "ingest",
		Usage:     "read Inspect logs into Parquet tables",
		ArgsUsage: "PATH...",
		Description: `Reads every .eval and .json log under the given files and folders
(recursively) into the tables of the dataset --out DIR:

   logs, replies, scores, model_calls, ingest_errors

each readable with read_parquet('DIR/current/<table>/*.parquet'), plus
DIR/empties.duckdb holding one view per table. Every log era is read: zstd,
deflate or stored members, ZIP64, duplicate members (the last wins), running
or killed logs (no header.json), log versions 1-3, event pools and
attachments. Files that are not regular (FIFOs, sockets, devices) and .json
files that are not logs are skipped, each named in the summary.

A folder is read as inspect_ai lays it out: per eval.task_id the newest
attempt counts (an eval set's retry, a -recovered copy of a crashed log), and
shard logs (<name>.shards/<k>/) that their finished merged log covers are
superseded by it; <name>.checkpoints/ folders are not read. Every file keeps
its row in logs, with set_status (counted or superseded), superseded_by and
superseded_reason, and every sample its rows; a superseded log's rows are
counted by no measure. --all-attempts counts every file.

DIR must be new, empty, or a dataset empties wrote (it holds
empties-dataset.json); any other folder is refused and left as it was. The
tables hold the rows of exactly the given logs. Into a dataset an ingest
already wrote, only files that are new or changed are read: a file whose
path, size and modification time match its logs row is unchanged and not
opened; one whose size or time differ is hashed, and counts as changed only
if its SHA-256 differs too. The rows of changed files and of files no longer
found are removed, the others kept, the log set decided again over them all,
and the summary says: new N, changed N, unchanged N, removed N. A file that
could not be read is tried again; a file read by another empties version is
read again. --full reads every file (use it if a tool rewrites logs keeping
their size and time). When any row changes, the later stages' tables in DIR
(computed from the old rows) are removed: run rescore, analyze and decide
again; when none does, they are kept. A file that cannot be read is reported
with the member at fault and left out whole; the others go on, and the exit
code is 1. A sample that the log's summaries list without a member is
reported (ingest_errors names the sample and the member expected) and the
exit code is 1; the log's other samples are read. The new tables replace
the old in one atomic switch: a killed or interrupted run leaves the
previous tables as they were.

A dataset grown by many incremental runs keeps its tables in few files: once
replies, scores or model_calls holds more than 8 part files of fewer than
4,194,304 rows, the run rewrites those parts together, with their rows in the
order a full ingest writes them (no log is read again), in the same atomic
switch, and the summary says "compacted N part files into M". --compact
rewrites every part of those tables now; a table all of whose parts are
rewritten holds the files a full ingest of the same logs writes, byte for
byte.

The reply of each sample is the first completed generation of the model
under test: placeholders (pending events) and failed attempts that were
retried are skipped, and where the model made no call through Inspect's
model API, sample.output is used unless it is a judge's; replies.reply_source
says which (README "How the reply is chosen").

A PATH may be an s3://bucket/prefix/ URL (or one object's): the prefix is
read as a folder, with credentials, region and endpoint from the standard AWS
environment and configuration (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
AWS_PROFILE, AWS_REGION; AWS_ENDPOINT_URL for an S3-compatible server, then
addressed by path). logs.path keeps the URL. Each object is downloaded about
once, into a temporary file in $TMPDIR as large as the object, removed when
the log is done. A URL that cannot be listed is an ingest_errors row naming
it; the other paths are still read.

Memory is bounded by what the logs declare: a member is inflated only up to
the size the zip's central directory gives it (one byte more is an error),
a member larger than --max-member-mb (or a .json sample or header larger
than it) is refused by name, and so is a member of more than 256 MiB that
declares more than 1,000 bytes per compressed byte (real logs stay under
50:1). A sample of 8 MiB or more is decoded from its member's stream,
keeping only what the tables read; a smaller one is read whole. The texts
kept still cost memory: a huge reply about four times its size while it is
written (a 200 MB reply: 750 MiB peak RSS). Lower the cap on a small machine,
raise it only for a log that needs it.

Examples:
   empties ingest logs/ --out data/study
   empties ingest logs/ --out data/study          # again: reads only new and changed logs
   empties ingest logs/ --out data/study --full   # reads every log again
   empties ingest logs/ --out data/study --compact   # rewrites the part files as a full ingest writes them
   empties ingest run1.eval run2.eval --out /tmp/two-runs
   empties ingest logs/ --out data/study --workers 8
   empties ingest logs/ --out data/archive --compression zstd   # smaller files, slower
   empties ingest logs/ --out data/every-attempt --all-attempts  # count retried attempts too
   empties ingest huge.eval --out data/huge --max-member-mb 6144   # one 5 GB sample
   AWS_ENDPOINT_URL=http://127.0.0.1:7070 empties ingest s3://logs/study/ --out data/study`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "dataset `DIR` to write", Required: true},
			&cli.IntFlag{Name: "workers", Aliases: []string{"j"}, Usage: "parallel sample decoders (0 = one per CPU)"},
			&cli.StringFlag{Name: "progress", Value: "auto", Usage: "progress display: auto (on a terminal), always, never"},
			&cli.BoolFlag{Name: "all-attempts", Usage: "count every log file: older attempts, crashed logs beside their recovered copy and merged shards too (default: inspect_ai's rules, newest attempt per task)"},
			&cli.IntFlag{Name: "max-member-mb", Value: evallog.DefaultMaxMember >> 20, Usage: "largest zip member or .json sample read, in `MiB` inflated; a log with a larger one fails, naming it"},
			&cli.BoolFlag{Name: "full", Usage: "read every log file again, even those the dataset holds unchanged (default: only new and changed files)"},
			&cli.StringFlag{Name: "compression", Value: store.DefaultCompression, Usage: "Parquet page compression of the files this run writes: " + strings.Join(store.Compressions, ", ") + " (zstd: about a quarter smaller, twice the CPU time to write; with --full or --compact every file)"},
			&cli.BoolFlag{Name: "compact", Usage: fmt.Sprintf("rewrite every part file of replies, scores and model_calls into parts in the order a full ingest writes, reading no log again (default: a table's small parts, once it holds more than %d)", store.MaxSmallParts)},
		},
		Arguments: []cli.Argument{&cli.StringArgs{Name: "paths", Min: 0, Max: -1}},
		Action: func(ctx context.Context, c *cli.Command) error {
			opts := Options{Paths: c.StringArgs("paths"), Out: c.String("out"), Workers: c.Int("workers"), Progress: c.String("progress"), Compression: c.String("compression"), AllAttempts: c.Bool("all-attempts"),
				Full: c.Bool("full"), Compact: c.Bool("compact"), MaxMemberBytes: int64(c.Int("max-member-mb")) << 20}
			return Run(ctx, opts, c.Root().Writer, c.Root().ErrWriter)
		},
	}
}

// Summary is what a run did.
type Summary struct {
	Files, Failed, Skipped int
	SkippedFiles           []Skipped // each file found and not read, with why
	// Missing counts the samples a log's summaries list without a member.
	Missing int
	Samples int64
	Bytes   int64
	Classes map[string]int64
	Errors  []schema.IngestError
	Elapsed time.Duration
	// Fetched counts the GETs made of s3:// objects and the bytes they
	// returned.
	Fetched objstore.Stats

	logs        []schema.Log // written once the set rules have run
	set         setSummary
	incremental bool // Files counts the new and changed files only
}

// Validate checks the options before any work.
func (opts Options) Validate() error {
	if len(opts.Paths) == 0 {
		return cliutil.Usagef("ingest: no PATH given; name log files or folders, e.g. `empties ingest logs/ --out data/study`")
	}
	if opts.Out == "" {
		return cliutil.Usagef("ingest: --out DIR is required")
	}
	switch opts.Progress {
	case "", "auto", "always", "never":
	default:
		return cliutil.Usagef("ingest: --progress must be auto, always or never, not %q", opts.Progress)
	}
	if opts.MaxMemberBytes < 0 {
		return cliutil.Usagef("ingest: --max-member-mb must be positive, not %d", opts.MaxMemberBytes>>20)
	}
	if opts.Compression != "" && !slices.Contains(store.Compressions, opts.Compression) {
		return cliutil.Usagef("ingest: --compression must be one of %s, not %q", strings.Join(store.Compressions, ", "), opts.Compression)
	}
	return nil
}

// Run ingests opts.Paths into opts.Out.
func Run(ctx context.Context, opts Options, stdout, stderr io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	// The dataset folder is checked before the logs are listed: it may not
	// be, hold or lie inside them (store.Create checks it again, locked).
	if _, err := guard.CheckDataset(opts.Out, guard.Rules{Avoid: opts.Paths}); err != nil {
		return err
	}
	local, urls := splitURLs(opts.Paths)
	files, skipped, err := discover(local)
	if err != nil {
		return err
	}
	remote, err := discoverRemote(ctx, urls)
	if err != nil {
		return err
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
			return fmt.Errorf("ingest: no logs could be listed under %s%s", strings.Join(opts.Paths, ", "), why.String())
		}
		return cliutil.Usagef("ingest: no .eval or .json logs found under %s%s", strings.Join(opts.Paths, ", "), why.String())
	}
	fps := remote.fingerprints(fingerprints(files))
	ds, err := store.Create(opts.Out, opts.Paths...)
	if err != nil {
		return err
	}
	defer ds.Close()
	if opts.Compression != "" {
		if err := ds.SetCompression(opts.Compression); err != nil {
			return err
		}
	}

	start := time.Now()
	var p *plan // nil: every file is read
	if !opts.Full {
		var why string
		if p, why, err = planIncremental(ds, fps); err != nil {
			return err
		}
		if why != "" {
			fmt.Fprintf(stderr, "note: reading every file: %s\n", why)
		}
	}
	toRead, starts := fps, map[string]int(nil)
	if p != nil {
		toRead = p.read
		if starts, err = p.carry(ds); err != nil {
			return err
		}
	}
	prog := newProgress(stderr, opts.Progress, len(toRead))
	spill := opts.SpillBytes
	if spill <= 0 {
		spill = DefaultSpillBytes
	}
	sum, err := ingestFiles(ctx, ds, toRead, starts, remote, workers(opts.Workers), spill, evallog.Limits{MaxMember: opts.MaxMemberBytes, HashBeside: true}, prog, stderr)
	prog.done()
	if err != nil {
		return err
	}
	remote.report(sum, stderr)
	sum.Skipped, sum.SkippedFiles = len(skipped), skipped
	sum.incremental = p != nil
	rows := sum.logs
	if p != nil {
		rows = mergeLogs(p.kept, sum.logs)
		for _, e := range p.keptErrors {
			sum.Missing++
			fmt.Fprintf(stderr, "error: %s: %s: %s (the file is unchanged since the last ingest)\n", e.Path, e.Member, e.Error)
		}
		sum.Errors = mergeErrors(p.keptErrors, sum.Errors)
	}
	// The set rules need every header, so the logs table is written last.
	sum.set = applyLogSet(rows, opts.AllAttempts)
	changed, commit := true, true
	if p != nil {
		changed, commit = p.changes(rows, sum.Errors)
	}
	var compacted compaction // nothing to commit: nothing compacted, unless asked
	if p != nil && (commit || opts.Compact) {
		if compacted, err = compactTables(ctx, ds, rows, opts.Compact); err != nil {
			return err
		}
		commit = commit || len(compacted) > 0
	}
	var dropped []string
	if commit {
		if err := writeLogs(ds, rows); err != nil {
			return err
		}
		if dropped, err = finish(ctx, ds, sum, changed); err != nil {
			return err
		}
	}
	sum.Elapsed = time.Since(start)
	printSummary(stdout, ds.Dir, sum)
	if p != nil {
		printIncremental(stdout, p)
		printCompaction(stdout, compacted)
		switch {
		case !commit:
			fmt.Fprintf(stdout, "nothing changed: the dataset is as it was\n")
		case len(dropped) > 0:
			fmt.Fprintf(stdout, "removed the tables computed from the old rows (%s): run rescore, analyze and decide again\n", strings.Join(dropped, ", "))
		}
	}
	printSetSummary(stdout, sum.set, opts.AllAttempts)
	var msgs []string
	if sum.Failed > 0 {
		msgs = append(msgs, fmt.Sprintf("%d of %d files could not be read; their samples are not in the tables", sum.Failed, sum.Files))
	}
	if sum.Missing > 0 {
		msgs = append(msgs, fmt.Sprintf("%d samples listed in their logs' summaries have no member to read", sum.Missing))
	}
	if len(msgs) > 0 {
		return &cliutil.PartialError{Msg: strings.Join(msgs, "; ") + " (listed above and in ingest_errors)"}
	}
	return nil
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

// ingestFiles runs the pipeline: a dispatcher opens files in order and hands
// samples to a pool of decoders; the writer takes results back in the same
// order, so output order never depends on timing, and at most a bounded
// number of samples is in flight.
//
// starts gives the part number each big table's new files start at
// (plan.carry); nil for a table written whole. remote opens the s3:// URLs.
func ingestFiles(ctx context.Context, ds *store.Dataset, files []Fingerprint, starts map[string]int, remote *remoteLogs, nWorkers int, spillAt int64, lim evallog.Limits, prog *progress, stderr io.Writer) (*Summary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inFlight := samplesInFlight * nWorkers
	order := make(chan item, inFlight)
	work := make(chan *job, inFlight)

	var wg sync.WaitGroup
	for range nWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				j.result <- runJob(ctx, j)
			}
		}()
	}
	// The opener reads headers, hashes and (for .json) sample offsets of the
	// next files while the current one's samples are decoded.
	type opened struct {
		l   *evallog.Log
		err error
	}
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
	go func() {
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
	}()

	sk, err := openSinks(ds, starts)
	if err != nil {
		return nil, err
	}
	w := &writer{ds: ds, sum: &Summary{Files: len(files), Classes: map[string]int64{}}, prog: prog, stderr: stderr, sinks: sk, spillAt: spillAt}
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
	if !waitWorkers(&wg, ctx) {
		if werr != nil {
			return nil, werr
		}
		return nil, fmt.Errorf("stopped with a sample still being read: %w", context.Canceled)
	}
	w.abort()
	if err := sk.close(); err != nil && werr == nil {
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
	rows, err := extract(j.ctx, j.ref.Member, d)
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
	prog    *progress
	stderr  io.Writer
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
	if s.replies, err = store.NewSinkAt[schema.Reply](ds, "replies", starts["replies"]); err != nil {
		return nil, err
	}
	if s.scores, err = store.NewSinkAt[schema.Score](ds, "scores", starts["scores"]); err != nil {
		return nil, err
	}
	if s.calls, err = store.NewSinkAt[schema.ModelCall](ds, "model_calls", starts["model_calls"]); err != nil {
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
		w.prog.file(0)
	case it.log != nil:
		w.cur, w.ctx, w.failed = it.log, it.ctx, false
		w.replies, w.scores, w.calls, w.held, w.nRows = nil, nil, nil, 0, 0
		w.classes = map[string]int64{}
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
		w.prog.sample()
	case it.end:
		return w.endFile()
	}
	return nil
}

func (w *writer) fail(path, member string, err error) {
	w.failed = true
	w.sum.Failed++
	e := schema.IngestError{Path: path, Member: member, Error: err.Error()}
	w.sum.Errors = append(w.sum.Errors, e)
	w.prog.clear()
	if member != "" {
		fmt.Fprintf(w.stderr, "error: %s: %s: %v\n", path, member, err)
	} else {
		fmt.Fprintf(w.stderr, "error: %s: %v\n", path, err)
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
		w.sum.Errors = append(w.sum.Errors, schema.IngestError{Path: path, Member: m.Member, Error: err.Error()})
		w.prog.clear()
		fmt.Fprintf(w.stderr, "error: %s: %s: %v\n", path, m.Member, err)
	}
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
		w.prog.file(0)
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
	w.prog.file(l.Size)
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
	paths := make([]string, 0, 3)
	defer func() {
		for _, p := range paths {
			os.Remove(p)
		}
	}()
	p, err := s.replies.Finish()
	paths = append(paths, p)
	if err == nil {
		err = store.ReadFile(p, func(rows []schema.Reply) error { w.sinks.replies.Write(slices.Clone(rows)); return nil })
	}
	if err != nil {
		return err
	}
	p, err = s.scores.Finish()
	paths = append(paths, p)
	if err == nil {
		err = store.ReadFile(p, func(rows []schema.Score) error { w.sinks.scores.Write(slices.Clone(rows)); return nil })
	}
	if err != nil {
		return err
	}
	p, err = s.calls.Finish()
	paths = append(paths, p)
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
	errs, err := store.NewWriter[schema.IngestError](ds, "ingest_errors")
	if err != nil {
		return nil, err
	}
	if err := errs.Write(sum.Errors...); err != nil {
		return nil, err
	}
	if err := errs.Keep(ds); err != nil {
		return nil, err
	}
	if err := store.Merge[schema.IngestError](ds, "ingest_errors"); err != nil {
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

func printSummary(w io.Writer, dir string, s *Summary) {
	ok := s.Files - s.Failed
	what := "files"
	if s.incremental {
		what = "new or changed files"
	}
	fmt.Fprintf(w, "ingested %d of %d %s, %d samples, %.1f MB in %.1fs", ok, s.Files, what, s.Samples, float64(s.Bytes)/1e6, s.Elapsed.Seconds())
	if s.Failed > 0 {
		fmt.Fprintf(w, "; %d failed", s.Failed)
	}
	if s.Skipped > 0 {
		fmt.Fprintf(w, "; %d files skipped", s.Skipped)
	}
	fmt.Fprintln(w)
	if s.Fetched.Requests > 0 {
		fmt.Fprintf(w, "fetched %.1f MB from object storage in %d GETs\n", float64(s.Fetched.Bytes)/1e6, s.Fetched.Requests)
	}
	for _, sk := range s.SkippedFiles {
		fmt.Fprintf(w, "  skipped %s: %s\n", sk.Path, sk.Reason)
	}
	if len(s.Classes) > 0 {
		if s.incremental {
			fmt.Fprintln(w, "reply classes of the files read:")
		} else {
			fmt.Fprintln(w, "reply classes:")
		}
		for _, c := range classOrder(s.Classes) {
			fmt.Fprintf(w, "  %-16s %8d\n", c, s.Classes[c])
		}
	}
	fmt.Fprintf(w, "tables in %s (DuckDB views: %s)\n", filepath.Join(dir, store.CurrentLink), filepath.Join(dir, store.ViewsFile))
}

// classOrder lists the classes present in the seed's order.
func classOrder(m map[string]int64) []string {
	var out []string
	for _, r := range classify.OrderedRules() {
		if _, ok := m[r.Class]; ok && (len(out) == 0 || out[len(out)-1] != r.Class) {
			out = append(out, r.Class)
		}
	}
	var rest []string
	for c := range m {
		found := false
		for _, o := range out {
			found = found || o == c
		}
		if !found {
			rest = append(rest, c)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
