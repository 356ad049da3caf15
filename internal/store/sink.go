package store

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
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
	codec compress.Codec
}

// NewSink opens a sink for a table of the dataset.
func NewSink[T any](d *Dataset, table string) (*Sink[T], error) {
	dir := filepath.Join(d.staging, "final", table)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &Sink[T]{table: table, dir: dir, in: make(chan []T, 1), done: make(chan error, 1), codec: d.codec}
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
	var (
		f      *os.File
		w      *parquet.GenericWriter[T]
		part   int
		inFile int64
		err    error
	)
	open := func() error {
		f, err = os.Create(filepath.Join(s.dir, fmt.Sprintf("part-%05d.parquet", part)))
		if err != nil {
			return err
		}
		w = newParquetWriter[T](f, s.codec)
		part++
		inFile = 0
		return nil
	}
	finish := func() error {
		e := w.Close()
		if ce := f.Close(); e == nil {
			e = ce
		}
		return e
	}
	err = open()
	for rows := range s.in {
		if err != nil {
			continue // drain, keeping the first error
		}
		if inFile >= RowsPerFile {
			if err = finish(); err == nil {
				err = open()
			}
			if err != nil {
				continue
			}
		}
		_, err = w.Write(rows)
		inFile += int64(len(rows))
	}
	if w != nil {
		if e := finish(); err == nil {
			err = e
		}
	}
	if err != nil {
		err = fmt.Errorf("writing %s: %w", s.table, err)
	}
	s.done <- err
}
