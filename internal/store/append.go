package store

// Growing a table of the current generation instead of writing it anew: an
// incremental ingest keeps the part files of the logs that did not change
// (hard links, nothing read), writes the rows of new logs into further part
// files beside them, and rewrites only the parts that hold rows of a log that
// changed or disappeared.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"empties/internal/guard"
)

// CurrentFiles lists a table's part files in the current generation, sorted,
// read under d's lock (the generation cannot be switched or removed under
// it, so, unlike TableFiles, it is not pinned); none if the table is absent.
func (d *Dataset) CurrentFiles(table string) ([]string, error) {
	n, err := currentNumber(d.Dir)
	if err != nil || n == 0 {
		return nil, err
	}
	dir := filepath.Join(d.Dir, genDir, genName(n), table)
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".parquet") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// ReadCurrent reads every row of a table of the current generation, under
// d's lock (CurrentFiles).
func ReadCurrent[T any](d *Dataset, table string) ([]T, error) {
	files, err := d.CurrentFiles(table)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, f := range files {
		if err := ReadFile(f, func(rows []T) error { out = append(out, rows...); return nil }); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	return out, nil
}

// FilterParts puts a table of the current generation into the next one
// keeping only the rows whose value of the text column key keep accepts
// (keyOf reads it from a row). A part file that loses no row is hard-linked
// as it is, after reading that one column; one that loses rows is written
// again under its name without them, and one that loses all of them is left
// out. keep nil accepts every row without reading any: every part is linked.
// It returns the number the next part file takes (NewSinkAt), so rows added
// in the same run land in files of their own, and the rows left out.
func FilterParts[T any](d *Dataset, table, key string, keep func(string) bool, keyOf func(*T) string) (next int, dropped int64, err error) {
	if err := d.mayWrite(table, rowType[T]()); err != nil {
		return 0, 0, err
	}
	files, err := d.CurrentFiles(table)
	if err != nil {
		return 0, 0, err
	}
	dst, err := d.TableDir(table)
	if err != nil {
		return 0, 0, err
	}
	for _, src := range files {
		name := filepath.Base(src)
		if n, ok := partNumber(name); ok && n >= next {
			next = n + 1
		}
		if keep == nil {
			if err := linkTable(filepath.Dir(src), dst, []string{name}); err != nil {
				return 0, 0, err
			}
			continue
		}
		all, none, err := keeps(src, key, keep)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", src, err)
		}
		if none {
			// Every row is dropped: the part is left out unread. Its rows
			// may be of an older schema (an ingest_version that changed
			// with the tables), which its type T could not read.
			n, err := partRows(src)
			if err != nil {
				return 0, 0, fmt.Errorf("%s: %w", src, err)
			}
			dropped += n
			continue
		}
		if all {
			if err := linkTable(filepath.Dir(src), dst, []string{name}); err != nil {
				return 0, 0, err
			}
			continue
		}
		n, err := filterPart(src, filepath.Join(dst, name), func(r *T) bool { return keep(keyOf(r)) }, d)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", src, err)
		}
		dropped += n
		if n == 0 {
			if err := linkTable(filepath.Dir(src), dst, []string{name}); err != nil {
				return 0, 0, err
			}
		}
	}
	return next, dropped, nil
}

// filterPart writes the rows of src that keep accepts to dst and returns how
// many it left out; when none, dst is not left behind (the caller links src),
// and when all, neither.
func filterPart[T any](src, dst string, keep func(*T) bool, d *Dataset) (int64, error) {
	f, err := guard.Create(dst)
	if err != nil {
		return 0, err
	}
	w := newParquetWriter[T](f, d.codec)
	var dropped, kept int64
	err = ReadFile(src, func(rows []T) error {
		n := 0
		for i := range rows {
			if keep(&rows[i]) {
				rows[n] = rows[i]
				n++
			}
		}
		dropped += int64(len(rows) - n)
		kept += int64(n)
		if n == 0 {
			return nil
		}
		_, err := w.Write(rows[:n])
		return err
	})
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil || dropped == 0 || kept == 0 {
		os.Remove(dst)
	}
	return dropped, err
}

// keeps reports whether keep accepts the key of every row of a part file,
// and whether of none, reading that one column only.
func keeps(src, key string, keep func(string) bool) (all, none bool, err error) {
	all, none = true, true
	err = scanColumn(src, key, func(v []byte) bool {
		if keep(string(v)) {
			none = false
		} else {
			all = false
		}
		return all || none
	})
	if err != nil {
		return false, false, err
	}
	return all, none, nil
}

// scanColumn calls fn with the value of the text column key of every row of
// a part file, in row order, reading that one column only, until fn returns
// false. The bytes are valid during the call only.
func scanColumn(src, key string, fn func([]byte) bool) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return err
	}
	col, ok := pf.Schema().Lookup(key)
	if !ok {
		return fmt.Errorf("no column %q", key)
	}
	vals := make([]parquet.Value, 1024)
	for _, rg := range pf.RowGroups() {
		pages := rg.ColumnChunks()[col.ColumnIndex].Pages()
		for {
			p, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				pages.Close()
				return err
			}
			r := p.Values()
			for {
				n, err := r.ReadValues(vals)
				for _, v := range vals[:n] {
					if !fn(v.ByteArray()) {
						pages.Close()
						return nil
					}
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					pages.Close()
					return err
				}
			}
		}
		pages.Close()
	}
	return nil
}

// partNumber reads n from part-<n>.parquet.
func partNumber(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, "part-")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, ".parquet")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}
