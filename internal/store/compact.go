package store

// Compaction: a dataset grown by many small incremental ingests gains a
// small part file per table and run (the rows of the logs it read), and
// engines slow down on many small files. CompactParts rewrites a table's
// small parts of the next generation together, into parts of RowsPerFile
// rows, with the rows in the order a full ingest writes them: by the rank
// of their key (ingest: the path order of their log), each key's rows in
// the order they were in. The files of the current generation linked into
// the next one are only read; their links are removed from the build and
// new files are written in their place, so the current generation, which
// readers may be reading, is never modified, and Commit switches the
// compacted table in with the rest of the run.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/parquet-go/parquet-go"

	"empties/internal/guard"
)

// MaxSmallParts is how many small part files (of fewer than RowsPerFile
// rows) a table may hold before CompactParts rewrites them together. A
// table a full ingest wrote in one part and that grows by one part per
// incremental run is compacted back into one part every eighth run; in the
// others a run that adds one log writes one part per table and reads no
// more than the footers of the parts, and that only once the table holds
// more than MaxSmallParts parts.
const MaxSmallParts = 8

// compactBatchBytes bounds the texts of one key's rows held in memory to be
// written at once. A full ingest writes each log's rows in one batch, and
// parquet-go ends a page at a batch's end when its buffer is full, so
// writing the same batches writes the same bytes; a log with more texts than
// this is written in several batches (as a full ingest writes a log whose
// rows it spilled), in the same row order.
const compactBatchBytes = 256 << 20

// Compacted is what CompactParts did to a table.
type Compacted struct {
	Parts int // part files read and left out of the next generation
	Into  int // part files written in their place
}

// CompactParts rewrites part files of a table of the next generation (its
// files in the build, after FilterParts and the rows a run added): every
// part with all, else the small ones once there are more than
// MaxSmallParts of them (none otherwise: nothing is read). The rows of the
// parts rewritten are written in the order of rank of the value of their
// text column key (rank reads it), rows of equal rank in part name order
// and, within a part, in their order; a new part is started at a change of
// key once a file holds RowsPerFile rows, as a full ingest's Sink does. The
// new parts are numbered on from the highest part left as it was (from
// part-00000 when none is left), so when every part is rewritten, and the
// ranks are those of a full ingest of the same rows, the table's files are
// the files that full ingest writes, byte for byte (but for a key with
// more than compactBatchBytes of texts; see there). A table this run has
// not written into the build (FilterParts, a Sink) is left to Commit. It
// touches nothing of d but that table's folder, so the tables of a run can
// be compacted at the same time.
func CompactParts[T any](ctx context.Context, d *Dataset, table, key string, all bool, rank func(string) int) (Compacted, error) {
	if err := d.mayWrite(table, rowType[T]()); err != nil {
		return Compacted{}, err
	}
	dir := filepath.Join(d.build, finalDir, table)
	names, err := partNames(dir)
	if os.IsNotExist(err) {
		return Compacted{}, nil // not written in this run: Commit links it as it is
	}
	if err != nil {
		return Compacted{}, err
	}
	in, err := compactable(dir, names, all)
	if err != nil || len(in) == 0 {
		return Compacted{}, err
	}
	runs, err := keyRuns(dir, in, key, rank)
	if err != nil {
		return Compacted{}, err
	}
	first := 0
	for _, name := range names {
		if n, ok := partNumber(name); ok && n >= first && !slices.Contains(in, name) {
			first = n + 1
		}
	}
	// The new parts are written beside the table, not into it: a name they
	// take may be a link to the current generation's file, which creating
	// the file would truncate.
	tmp, err := guard.TempDir(d.build, ".compact-"+table+".")
	if err != nil {
		return Compacted{}, err
	}
	defer tmp.Close()
	out := tmp.Path
	if err := writeRuns[T](ctx, d, dir, out, in, runs, first); err != nil {
		return Compacted{}, fmt.Errorf("compacting %s: %w", table, err)
	}
	written, err := partNames(out)
	if err != nil {
		return Compacted{}, err
	}
	for _, name := range in {
		// A link (or this run's own file): removing the name leaves the
		// file of the current generation as it is.
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return Compacted{}, err
		}
	}
	for _, name := range written {
		if err := os.Rename(filepath.Join(out, name), filepath.Join(dir, name)); err != nil {
			return Compacted{}, err
		}
	}
	return Compacted{Parts: len(in), Into: len(written)}, nil
}

// partNames lists the part files of a folder, sorted.
func partNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if _, ok := partNumber(e.Name()); ok && !e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// compactable picks the parts CompactParts rewrites.
func compactable(dir string, names []string, all bool) ([]string, error) {
	if all {
		return names, nil
	}
	if len(names) <= MaxSmallParts {
		return nil, nil
	}
	var small []string
	for _, name := range names {
		n, err := partRows(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
		if n < rowsPerFile {
			small = append(small, name)
		}
	}
	if len(small) <= MaxSmallParts {
		return nil, nil
	}
	return small, nil
}

// partRows is the number of rows of a part file, from its footer.
func partRows(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return 0, err
	}
	return pf.NumRows(), nil
}

// keyRun is a run of rows of one part with the same key.
type keyRun struct {
	part  int // index in the parts compacted
	start int64
	n     int64
	rank  int
}

// keyRuns reads the key column of the parts and returns their runs of rows,
// in the order they are written: by rank, then part, then row.
func keyRuns(dir string, parts []string, key string, rank func(string) int) ([]keyRun, error) {
	var runs []keyRun
	for i, name := range parts {
		var prev []byte
		var row int64
		err := scanColumn(filepath.Join(dir, name), key, func(v []byte) bool {
			if row == 0 || string(v) != string(prev) {
				runs = append(runs, keyRun{part: i, start: row, rank: rank(string(v))})
				prev = append(prev[:0], v...)
			}
			runs[len(runs)-1].n++
			row++
			return true
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].rank < runs[j].rank })
	return runs, nil
}

// partReader reads the rows of one part compacted, run after run.
type partReader[T any] struct {
	f   *os.File
	r   *parquet.GenericReader[T]
	pos int64 // the next row Read gives
}

func (p *partReader[T]) close() {
	p.r.Close()
	p.f.Close()
}

// writeRuns writes the rows of the runs, in order, into new part files in
// out numbered from first. A part is open from its first run to its last.
func writeRuns[T any](ctx context.Context, d *Dataset, dir, out string, parts []string, runs []keyRun, first int) error {
	w, err := newPartsAt[T](out, d.codec, first)
	if err != nil {
		return err
	}
	defer w.Close()
	last := make([]int, len(parts))
	for j, r := range runs {
		last[r.part] = j
	}
	open := map[int]*partReader[T]{}
	defer func() {
		for _, p := range open {
			p.close()
		}
	}()
	size := textBytes[T]()
	var batch []T
	held := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := w.add(batch)
		batch, held = nil, 0
		return err
	}
	for j, r := range runs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if j == 0 || r.rank != runs[j-1].rank {
			if err := flush(); err != nil {
				return err
			}
			if err := w.roll(); err != nil {
				return err
			}
		}
		p := open[r.part]
		if p == nil {
			f, err := os.Open(filepath.Join(dir, parts[r.part]))
			if err != nil {
				return err
			}
			p = &partReader[T]{f: f, r: parquet.NewGenericReader[T](f)}
			open[r.part] = p
		}
		if p.pos != r.start {
			if err := p.r.SeekToRow(r.start); err != nil {
				return fmt.Errorf("%s: %w", parts[r.part], err)
			}
			p.pos = r.start
		}
		for left := r.n; left > 0; {
			buf := make([]T, min(left, 1024))
			n, err := p.r.Read(buf)
			if n == 0 && err == nil {
				err = io.ErrNoProgress
			}
			p.pos += int64(n)
			left -= int64(n)
			for i := range buf[:n] {
				held += size(&buf[i])
			}
			batch = append(batch, buf[:n]...)
			if held >= compactBatchBytes {
				if err := flush(); err != nil {
					return err
				}
			}
			if errors.Is(err, io.EOF) && left > 0 {
				return fmt.Errorf("%s: ends at row %d, before the %d rows of its key column", parts[r.part], p.pos, r.start+r.n)
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("%s: %w", parts[r.part], err)
			}
		}
		if last[r.part] == j {
			p.close()
			delete(open, r.part)
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return w.Close()
}
