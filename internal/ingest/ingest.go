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
	"runtime/debug"
	"strings"
	"time"

	"empties/internal/cliutil"
	"empties/internal/duck"
	"empties/internal/evallog"
	"empties/internal/guard"
	"empties/internal/objstore"
	"empties/internal/store"
	"empties/schema"
)

// gcPercent is the collector's target while ingest runs (Go's default is
// 100): the walk allocates about half what the decoder before it did, so
// at the default the collector ran a third as often and the heap grew to a
// higher peak between runs (peak RSS, five interleaved runs: the bench
// corpus 236 -> 246 MiB, the wild corpus 147 -> 168 MiB); at 75 it is 225
// and 150 MiB, below the build before, for CPU time still a tenth to a
// fifth below it (README, "One decoder, no second decodes").
const gcPercent = 75

// collectMoreOften sets the collector's target to gcPercent, unless the
// user set GOGC, and returns what restores it.
func collectMoreOften() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(gcPercent)
	return func() { debug.SetGCPercent(old) }
}

// Summary counts what the reading did.
type Summary struct {
	Files, Failed, Skipped int
	SkippedFiles           []Skipped // each file found and not read, with why
	// LinksNotFollowed are links to folders below the folders named whose
	// folder lies outside them: not followed, as inspect_ai's listing does
	// not follow them, so their logs are not read (name one to read it).
	LinksNotFollowed []string
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
	defer collectMoreOften()()
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
	sum.Skipped, sum.SkippedFiles, sum.LinksNotFollowed = len(in.skipped), in.skipped, in.unfollowed
	res, err := settle(ctx, ds, p, sum, cfg)
	if err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// found is what findLogs found: the files to consider and those skipped.
type found struct {
	fps        []Fingerprint
	skipped    []Skipped
	unfollowed []string // links to folders outside the folders named (discover)
	remote     *remoteLogs
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
	files, skipped, unfollowed, err := discover(local)
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
		for _, l := range unfollowed {
			fmt.Fprintf(&why, "\n  %s", NotFollowed(l))
		}
		if len(remote.errs) > 0 { // not a usage error: the storage refused
			return found{}, fmt.Errorf("ingest: no logs could be listed under %s%s", strings.Join(paths, ", "), why.String())
		}
		return found{}, cliutil.Usagef("ingest: no .eval or .json logs found under %s%s", strings.Join(paths, ", "), why.String())
	}
	return found{fps: remote.fingerprints(fingerprints(files)), skipped: skipped, unfollowed: unfollowed, remote: remote}, nil
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

// LogID is the stable key of a log file: a hash of its absolute path.
func LogID(absPath string) string {
	s := sha256.Sum256([]byte(absPath))
	return hex.EncodeToString(s[:8])
}
