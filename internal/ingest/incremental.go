package ingest

// Incremental ingest: into a dataset an ingest made, only the files that are
// new or changed are read.
//
//   - Change detection. A file whose path, size and modification time
//     (Fingerprint) match its logs row, and whose row was written by this
//     ingest (logs.ingest_version), is unchanged and not opened. When the
//     size or the time differ, the file is hashed: the same SHA-256 as the
//     row's is still unchanged (only logs.modified moves); another is
//     changed and read again. A file with no logs row is new (a file that
//     could not be read last time has none, so it is tried again). A row
//     whose file the given paths no longer hold is removed, with its
//     samples' rows. Like make and rsync, this trusts that content does
//     not change under an unchanged size and time; --full reads everything.
//     An s3:// object is unchanged when its listed size and ETag match its
//     row's (logs.etag); it is never hashed (that would download it).
//   - Rows. The part files of replies, scores and model_calls are kept as
//     they are (hard links into the new generation) unless they hold rows of
//     a changed or removed file: those parts are written again without them.
//     The rows of the files read go into new part files beside them, so
//     within those tables the rows of one file stay together but files are
//     no longer in path order (no reader relies on it; order by a key). logs
//     and ingest_errors are small and written whole, in path order, exactly
//     as a full ingest writes them.
//   - Compaction. So that many small runs do not leave a table of many
//     small files, once replies, scores or model_calls holds more than
//     store.MaxSmallParts parts of fewer than store.RowsPerFile rows, the run
//     rewrites those parts together (--compact: every part) in the order a
//     full ingest writes them, by the path of their log (compactTables). A
//     table whose every part is rewritten then holds the files a full ingest
//     of the same logs writes, byte for byte. No log is read again, and the
//     compacted parts switch in with the rest of the run's generation.
//   - The log set (internal/logset) is decided again over every row, kept
//     and new, from the logs rows alone: a new retry supersedes a kept
//     attempt, a removed one gives the attempt it superseded back, and
//     changing --all-attempts needs no file read.
//   - Later stages. When no row of ingest's tables changes (logs.modified
//     aside), the later stages' tables stay valid and are kept; nothing at
//     all changed leaves the dataset's generation as it was. Any other change
//     removes them (schema.KeptWhenRepliesChange), as a full ingest does, so
//     no later table ever mixes rows of two ingests: run rescore, analyze
//     and decide again.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"sort"
	"sync"

	"empties/internal/classify"
	"empties/internal/store"
	"empties/schema"
)

// ingestTables are the tables ingest writes.
var ingestTables = []string{"logs", "replies", "scores", "model_calls", "ingest_errors"}

// plan is what an ingest into an existing dataset does with each file.
type plan struct {
	read       []Fingerprint // new and changed files, in path order
	kept       []schema.Log  // unchanged files' rows, modified brought up to date
	keptIDs    map[string]bool
	keptErrors []schema.IngestError // ingest_errors rows of unchanged files
	dropped    int                  // changed and removed files: their rows go

	prevLogs   []schema.Log
	prevErrors []schema.IngestError

	Incremental
}

// Incremental counts the files of an ingest into a dataset an ingest wrote.
type Incremental struct {
	New, Changed, Unchanged, Removed int
	Hashed                           int // files whose size or time differed, settled by their hash
	Stale                            int // of Changed: read by another ingest version
}

// planIncremental compares the files found with the dataset's logs rows. It
// returns nil, with why, when the dataset holds no complete ingest to build on.
func planIncremental(ds *store.Dataset, files []Fingerprint) (*plan, string, error) {
	for _, t := range ingestTables {
		fs, err := ds.CurrentFiles(t)
		if err != nil {
			return nil, "", err
		}
		if len(fs) == 0 {
			return nil, "", nil // a new dataset, or one no ingest finished
		}
	}
	prev, err := store.ReadCurrent[schema.Log](ds, "logs")
	if err != nil {
		return nil, fmt.Sprintf("the dataset's logs table cannot be read (%v)", err), nil
	}
	prevErrs, err := store.ReadCurrent[schema.IngestError](ds, "ingest_errors")
	if err != nil {
		return nil, fmt.Sprintf("the dataset's ingest_errors table cannot be read (%v)", err), nil
	}
	p := &plan{keptIDs: map[string]bool{}, prevLogs: prev, prevErrors: prevErrs}
	byPath := make(map[string]*schema.Log, len(prev))
	for i := range prev {
		byPath[prev[i].Path] = &prev[i]
	}
	found := make(map[string]bool, len(files))
	version := ingestVersion()
	for _, f := range files {
		found[f.Path] = true
		row, ok := byPath[f.Path]
		switch {
		case !ok:
			p.New++
			p.read = append(p.read, f)
			continue
		case row.IngestVersion != version:
			p.Changed++
			p.Stale++
			p.read = append(p.read, f)
			continue
		}
		if f.ETag != "" { // an object: its size and ETag say whether it changed
			if row.SizeBytes != f.Size || row.ETag == nil || *row.ETag != f.ETag {
				p.Changed++
				p.read = append(p.read, f)
				continue
			}
		} else if row.SizeBytes != f.Size || row.Modified == nil || *row.Modified != f.ModTime {
			p.Hashed++
			sum, err := hashFile(f.Path)
			if err != nil || sum != row.SHA256 {
				p.Changed++ // an unreadable file is read, and its error reported
				p.read = append(p.read, f)
				continue
			}
		}
		p.Unchanged++
		r := *row
		mt := f.ModTime
		r.Modified = &mt
		p.kept = append(p.kept, r)
		p.keptIDs[r.LogID] = true
	}
	for _, r := range prev {
		if !found[r.Path] {
			p.Removed++
		}
	}
	p.dropped = len(prev) - len(p.kept)
	for _, e := range prevErrs {
		if row, ok := byPath[e.Path]; ok && p.keptIDs[row.LogID] {
			p.keptErrors = append(p.keptErrors, e)
		}
	}
	return p, "", nil
}

// hashFile is the SHA-256 of a file's bytes, as evallog computes it; a
// variable so that tests count the files it reads.
var hashFile = func(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, make([]byte, 1<<20)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// carry puts the rows of the unchanged files of replies, scores and
// model_calls into the next generation and returns the part number each
// table's new rows start at. With no file dropped every part is linked
// without being read.
func (p *plan) carry(ds *store.Dataset) (map[string]int, error) {
	next := map[string]int{}
	var err error
	if next["replies"], err = carryTable(ds, "replies", p, func(r *schema.Reply) string { return r.LogID }); err != nil {
		return nil, err
	}
	if next["scores"], err = carryTable(ds, "scores", p, func(r *schema.Score) string { return r.LogID }); err != nil {
		return nil, err
	}
	if next["model_calls"], err = carryTable(ds, "model_calls", p, func(r *schema.ModelCall) string { return r.LogID }); err != nil {
		return nil, err
	}
	return next, nil
}

func carryTable[T any](ds *store.Dataset, table string, p *plan, logID func(*T) string) (int, error) {
	var keep func(string) bool
	if p.dropped > 0 {
		keep = func(id string) bool { return p.keptIDs[id] }
	}
	next, _, err := store.FilterParts(ds, table, "log_id", keep, logID)
	return next, err
}

// Compaction is what compactTables did, table by table.
type Compaction []TableCompaction

// TableCompaction is the compaction of one table.
type TableCompaction struct {
	Table string
	store.Compacted
}

// compactTables compacts replies, scores and model_calls in the next
// generation (store.CompactParts): their small parts once there are too
// many, every part with all. Rows go in the order of their log in logs,
// which is path order, the order of a full ingest.
func compactTables(ctx context.Context, ds *store.Dataset, logs []schema.Log, all bool) (Compaction, error) {
	ranks := make(map[string]int, len(logs))
	for i, l := range logs {
		ranks[l.LogID] = i
	}
	rank := func(id string) int {
		if r, ok := ranks[id]; ok {
			return r
		}
		return len(logs) // a row with no logs row (none is written): last
	}
	jobs := []func() (TableCompaction, error){
		compactTable[schema.Reply](ctx, ds, "replies", all, rank),
		compactTable[schema.Score](ctx, ds, "scores", all, rank),
		compactTable[schema.ModelCall](ctx, ds, "model_calls", all, rank),
	}
	// A table each on a goroutine of its own, as a full ingest's sinks.
	var wg sync.WaitGroup
	res := make([]TableCompaction, len(jobs))
	errs := make([]error, len(jobs))
	for i, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i], errs[i] = job()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var out Compaction
	for _, c := range res {
		if c.Parts > 0 {
			out = append(out, c)
		}
	}
	return out, nil
}

func compactTable[T any](ctx context.Context, ds *store.Dataset, table string, all bool, rank func(string) int) func() (TableCompaction, error) {
	return func() (TableCompaction, error) {
		c, err := store.CompactParts[T](ctx, ds, table, "log_id", all, rank)
		return TableCompaction{table, c}, err
	}
}

// mergeLogs puts the kept rows and the rows read into path order, the order
// a full ingest writes them in.
func mergeLogs(kept, read []schema.Log) []schema.Log {
	out := append(slices.Clone(kept), read...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// mergeErrors does the same for ingest_errors, keeping each file's errors in
// the order they were found.
func mergeErrors(kept, read []schema.IngestError) []schema.IngestError {
	out := append(slices.Clone(kept), read...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// changes compares the new logs and ingest_errors rows with the dataset's:
// rows says whether anything but logs.modified differs, any whether anything
// does. The big tables need no comparison: a file is read only when it has
// no logs row (new) or its row's sha256 or ingest_version differs from what
// the read writes, and its rows are dropped only then or when its logs row
// goes, so equal logs rows mean equal rows everywhere. (A file that failed
// again, the same way, changes nothing.)
func (p *plan) changes(logs []schema.Log, errs []schema.IngestError) (rows, any bool) {
	if !reflect.DeepEqual(normErrors(errs), normErrors(p.prevErrors)) {
		return true, true
	}
	if len(logs) != len(p.prevLogs) {
		return true, true
	}
	for i := range logs {
		a, b := normLog(logs[i]), normLog(p.prevLogs[i])
		if !reflect.DeepEqual(a, b) {
			if a.Modified, b.Modified = nil, nil; !reflect.DeepEqual(a, b) {
				return true, true
			}
			any = true
		}
	}
	return false, any
}

// normLog makes an empty list and a null one compare equal: the Parquet
// reader gives back either for an empty logs.tags.
func normLog(r schema.Log) schema.Log {
	if len(r.Tags) == 0 {
		r.Tags = nil
	}
	return r
}

func normErrors(e []schema.IngestError) []schema.IngestError {
	if len(e) == 0 {
		return nil
	}
	return e
}

// ingestVersion names what turns a file into rows: the columns of ingest's
// tables, the classification rules (classify.Version) and the extraction
// rules (ExtractVersion), and nothing of the build, so a rebuild from a new
// commit with the same rules reads no file again. A logs row of another
// version was written by other rules, and its file is read again.
var ingestVersion = sync.OnceValue(func() string {
	h := sha256.New()
	for _, name := range ingestTables {
		t, _ := schema.Lookup(name)
		for _, c := range t.Columns() {
			fmt.Fprintf(h, "%s.%s %s %v\n", name, c.Name, c.Type, c.Nullable)
		}
	}
	return fmt.Sprintf("tables %s, rules %s, extract %d", hex.EncodeToString(h.Sum(nil))[:12], classify.Version, ExtractVersion)
})
