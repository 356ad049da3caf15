// Package store writes the Parquet tables of a dataset directory without ever
// exposing a half-written table or a half-switched dataset. A dataset is a
// folder empties made (it holds empties-dataset.json); its tables live in
// generations, DIR/gen/<n>/<table>/*.parquet, and DIR/current is a symlink
// to the one generation readers see. A stage run builds a whole new
// generation beside the current one (rows go first to a build folder, one
// file per table per log, so a log that fails part-way is simply dropped;
// tables the run does not write are hard-linked from the current
// generation), fsyncs it, and makes it current by renaming one symlink
// (Commit). A killed run leaves the current generation as it was and a
// build folder that the next run removes. The layout is in dataset.go, the
// steps of a commit in commit.go.
package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"empties/internal/guard"
)

// RowsPerGroup bounds a row group, so readers stream and memory stays flat.
const RowsPerGroup = 8 * 1024

// RowsPerFile starts a new part file once a table's file holds this many rows.
const RowsPerFile = 4 * 1024 * 1024

// rowsPerFile is RowsPerFile, lowered by tests of big parts.
var rowsPerFile int64 = RowsPerFile

// Writer writes rows of one table into one staged file.
type Writer[T any] struct {
	table string
	path  string
	f     *os.File
	w     *rowWriter[T]
	rows  int64
}

// NewWriter opens a staged file for a table (WriterOf, for a table of
// schema/).
func NewWriter[T any](d *Dataset, table string) (*Writer[T], error) {
	if err := d.mayWrite(table, rowType[T]()); err != nil {
		return nil, err
	}
	d.seq++
	dir := filepath.Join(d.build, "staged", table)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, fmt.Sprintf("%08d.parquet", d.seq))
	f, err := guard.Create(p)
	if err != nil {
		return nil, err
	}
	return &Writer[T]{table: table, path: p, f: f, w: newParquetWriter[T](f, d.codec)}, nil
}

// snappyChunk is the page size from which a page is compressed a chunk at a
// time. EncodeSnappy wants a buffer of MaxEncodedLen, a little more than
// the page, and growing a slice clears all of it: a page of one 200 MB
// reply made 230 MB resident to hold 15 MB of output.
const snappyChunk = 4 << 20

// encodeSnappyChunked appends to dst the Snappy block of src, compressed
// snappyChunk bytes at a time. A block is its uncompressed length (a
// varint) and then literals and copies whose offsets reach back into the
// output decoded so far: so the elements of chunks compressed one by one,
// concatenated after one length, decode to the chunks concatenated. The
// output is a valid block (DuckDB and snappy.Decode read it), not the bytes
// EncodeSnappy would write for the whole page.
func encodeSnappyChunked(dst, src []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(src)))
	scratch := make([]byte, s2.MaxEncodedLen(snappyChunk))
	for len(src) > 0 {
		c := src[:min(len(src), snappyChunk)]
		src = src[len(c):]
		b := s2.EncodeSnappy(scratch, c)
		_, k := binary.Uvarint(b)
		dst = append(dst, b[k:]...)
	}
	return dst
}

func newParquetWriter[T any](w io.Writer, c *compression) *rowWriter[T] {
	return newParquetWriterOf[T](w, c, func(_ []string, k parquet.Kind) compress.Codec { return c.codec(k) })
}

// newParquetWriterOf is newParquetWriter with each top-level column
// compressed by codecOf(its path, its kind).
func newParquetWriterOf[T any](w io.Writer, c *compression, codecOf func([]string, parquet.Kind) compress.Codec) *rowWriter[T] {
	sch := textSchema[T](codecOf)
	return newRowWriter(parquet.NewGenericWriter[T](w, append(writerOptions(sch, c), sch)...))
}

// writerOptions are the options of every file empties writes, for rows of
// the schema sch. The codec of a column that the schema does not give one
// (the items of a list) is that of its kind.
func writerOptions(sch *parquet.Schema, c *compression) []parquet.WriterOption {
	opts := []parquet.WriterOption{
		parquet.Compression(c.byKind[byteArrayColumn]),
		parquet.MaxRowsPerRowGroup(RowsPerGroup),
		parquet.CreatedBy("empties", "", ""),
		// Page statistics hold each page's min and max whole: a page of one
		// 200 MB reply carried it twice more, in memory and in the file.
		// The column index (truncated to 16 bytes) keeps page bounds.
		parquet.DataPageStatistics(false),
	}
	// So do the column chunk bounds of the footer, for every text column:
	// a 50 MB reply made a 200 MB footer. Ids keep theirs, for pruning.
	for _, path := range sch.Columns() {
		leaf, ok := sch.Lookup(path...)
		if ok && leaf.Node.Type().Kind() == parquet.ByteArray && !strings.HasSuffix(path[len(path)-1], "_id") {
			opts = append(opts, parquet.SkipPageBounds(path...))
		}
	}
	return opts
}

// Write appends rows.
func (w *Writer[T]) Write(rows ...T) error {
	if len(rows) == 0 {
		return nil
	}
	_, err := w.w.Write(rows)
	w.rows += int64(len(rows))
	return err
}

// Rows is the number of rows written so far.
func (w *Writer[T]) Rows() int64 { return w.rows }

// Keep finishes the file and stages it for the dataset.
func (w *Writer[T]) Keep(d *Dataset) error {
	err := w.w.Close()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(w.path)
		return fmt.Errorf("writing %s: %w", w.table, err)
	}
	d.staged[w.table] = append(d.staged[w.table], w.path)
	return nil
}

// Discard drops the file.
func (w *Writer[T]) Discard() {
	w.w.Close()
	w.f.Close()
	os.Remove(w.path)
}

// Merge writes a table's final files from its staged files, in staging
// order. A table with no rows still gets one (empty) file, so readers of the
// dataset always find every table.
func Merge[T any](d *Dataset, table string) error {
	if err := d.mayWrite(table, rowType[T]()); err != nil {
		return err
	}
	outDir, err := d.TableDir(table)
	if err != nil {
		return err
	}
	p, err := newParts[T](outDir, d.codec)
	if err != nil {
		return err
	}
	buf := make([]T, 1024)
	for _, src := range d.staged[table] {
		if err := copyRows(src, buf, p.Write); err != nil {
			p.Close()
			return fmt.Errorf("merging %s: %w", table, err)
		}
		os.Remove(src)
	}
	return p.Close()
}

func copyRows[T any](src string, buf []T, emit func([]T) error) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	r := parquet.NewGenericReader[T](f)
	defer r.Close()
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if err := emit(buf[:n]); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// Merged is the folder of the tables merged in this run and not yet
// committed, one folder per table, laid out like the dataset (TableGlob,
// duck.CreateViews read it), so a stage can read what it is about to commit
// and still commit everything at once.
func (d *Dataset) Merged() string { return filepath.Join(d.build, finalDir) }

// ReadAll reads every row of a table of a committed dataset.
func ReadAll[T any](dir, table string) ([]T, error) {
	files, err := tableFiles(dir, table)
	if err != nil {
		return nil, err
	}
	var out []T
	buf := make([]T, 1024)
	for _, f := range files {
		if err := copyRows(f, buf, func(rows []T) error {
			out = append(out, rows...)
			return nil
		}); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	return out, nil
}

// Rewrite stages a table of the committed dataset again with every row passed
// through edit, then merges it; Commit swaps it in. Rows stream through; the
// table is never held in memory. An error from edit stops the rewrite.
func Rewrite[T any](d *Dataset, table string, edit func(*T) error) error {
	files, err := tableFiles(d.Dir, table)
	if err != nil {
		return err
	}
	buf := make([]T, 1024)
	for _, src := range files {
		w, err := NewWriter[T](d, table)
		if err != nil {
			return err
		}
		err = copyRows(src, buf, func(rows []T) error {
			for i := range rows {
				if err := edit(&rows[i]); err != nil {
					return err
				}
			}
			return w.Write(rows...)
		})
		if err != nil {
			w.Discard()
			return fmt.Errorf("%s: %w", src, err)
		}
		if err := w.Keep(d); err != nil {
			return err
		}
	}
	return Merge[T](d, table)
}

// Scan streams every row of a table of a committed dataset through fn, in
// file order.
func Scan[T any](dir, table string, fn func(*T) error) error {
	files, err := tableFiles(dir, table)
	if err != nil {
		return err
	}
	buf := make([]T, 1024)
	for _, f := range files {
		if err := copyRows(f, buf, func(rows []T) error {
			for i := range rows {
				if err := fn(&rows[i]); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
}

// Finish closes the file without staging it, for a caller that reads the
// rows back itself (ReadFile) and removes the file.
func (w *Writer[T]) Finish() (string, error) {
	err := w.w.Close()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return w.path, err
}

// RemoveFinished removes the file Finish closed, once its rows are read back.
func (w *Writer[T]) RemoveFinished() error { return os.Remove(w.path) }

// ReadFile streams the rows of one Parquet file to fn in batches; fn must
// not keep the batch.
func ReadFile[T any](path string, fn func([]T) error) error {
	return copyRows(path, make([]T, 1024), fn)
}
