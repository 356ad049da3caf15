package store

import (
	"fmt"
	"os"
	"path/filepath"

	"empties/internal/guard"
)

// Sink streams rows of one table straight into the table's final files, on
// a goroutine of its own, so encoding and compressing one table overlaps
// with everything else. Callers hand it only rows that are final (ingest
// buffers a log's rows until the log has been read whole), which is what
// lets the big tables skip staging and merging. Commit swaps the files in.
type Sink[T any] struct {
	table string
	dir   string
	in    chan []T
	done  chan error
	rows  int64
	codec *compression
	first int // number of its first part file (NewSinkAt)
}

// NewSink opens a sink for a table of the dataset.
func NewSink[T any](d *Dataset, table string) (*Sink[T], error) {
	return NewSinkAt[T](d, table, 0)
}

// NewSinkAt is NewSink for a table that already holds parts in the next
// generation (FilterParts): its first file is part-<first>.parquet.
func NewSinkAt[T any](d *Dataset, table string, first int) (*Sink[T], error) {
	if err := d.mayWrite(table, rowType[T]()); err != nil {
		return nil, err
	}
	dir, err := d.TableDir(table)
	if err != nil {
		return nil, err
	}
	s := &Sink[T]{table: table, dir: dir, in: make(chan []T, 1), done: make(chan error, 1), codec: d.codec, first: first}
	go s.run()
	return s, nil
}

// Write queues rows; they are written in the order queued. The sink keeps
// the slice.
func (s *Sink[T]) Write(rows []T) {
	if len(rows) > 0 {
		s.rows += int64(len(rows))
		s.in <- rows
	}
}

// Rows is the number of rows queued so far.
func (s *Sink[T]) Rows() int64 { return s.rows }

// Close flushes the sink and reports the first write error.
func (s *Sink[T]) Close() error {
	close(s.in)
	return <-s.done
}

func (s *Sink[T]) run() {
	p, err := newPartsAt[T](s.dir, s.codec, s.first)
	for rows := range s.in {
		if err == nil {
			err = p.Write(rows)
		} // else drain, keeping the first error
	}
	if p != nil {
		if e := p.Close(); err == nil {
			err = e
		}
	}
	if err != nil {
		err = fmt.Errorf("writing %s: %w", s.table, err)
	}
	s.done <- err
}

// parts writes a table's final files, part-00000.parquet, part-00001.parquet
// and so on, starting the next once a file holds RowsPerFile rows (limit). The first
// is created at once, so a table with no rows still has one (empty) file.
type parts[T any] struct {
	dir   string
	codec *compression
	next  int // number of the next file
	f     *os.File
	w     *rowWriter[T]
	rows  int64 // in the current file
	limit int64 // rows per file (RowsPerFile)
}

func newParts[T any](dir string, codec *compression) (*parts[T], error) {
	return newPartsAt[T](dir, codec, 0)
}

// newPartsAt numbers its files from first. Past 0 the table already has
// files (FilterParts), so the first is created only once a row arrives.
func newPartsAt[T any](dir string, codec *compression, first int) (*parts[T], error) {
	p := &parts[T]{dir: dir, codec: codec, limit: rowsPerFile, next: first}
	if first > 0 {
		return p, nil
	}
	if err := p.open(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *parts[T]) open() error {
	f, err := guard.Create(filepath.Join(p.dir, fmt.Sprintf("part-%05d.parquet", p.next)))
	if err != nil {
		return err
	}
	p.f, p.w, p.rows = f, newParquetWriter[T](f, p.codec), 0
	p.next++
	return nil
}

// Write appends rows to the current file, first starting the next one if the
// current one is full.
func (p *parts[T]) Write(rows []T) error {
	if err := p.roll(); err != nil {
		return err
	}
	return p.add(rows)
}

// roll opens a file if none is open and starts the next one if the current
// one is full.
func (p *parts[T]) roll() error {
	if p.w == nil {
		return p.open()
	}
	if p.rows < p.limit {
		return nil
	}
	if err := p.Close(); err != nil {
		return err
	}
	return p.open()
}

// add appends rows to the current file (roll opened it), full or not.
func (p *parts[T]) add(rows []T) error {
	_, err := p.w.Write(rows)
	p.rows += int64(len(rows))
	return err
}

// Close finishes the current file.
func (p *parts[T]) Close() error {
	if p.w == nil {
		return nil
	}
	err := p.w.Close()
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	p.f, p.w = nil, nil
	return err
}
