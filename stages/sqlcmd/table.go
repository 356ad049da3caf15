package sqlcmd

import (
	"bufio"
	"encoding/csv"
	"io"
	"strings"
	"unicode/utf8"
)

// The table format: aligned columns, printed as the rows stream.

// printTable prints DuckDB's CSV (header first, NULL as NULL) as a table,
// row by row, and returns the number of rows; the caller prints the count
// once the query has ended well (a query stopped by a limit also ends its
// CSV, and is no result of that many rows).
func printTable(w io.Writer, width int, cr *csv.Reader) (int, error) {
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	bw := bufio.NewWriterSize(w, 64<<10)
	t := &table{w: bw, width: width}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			if err := t.close(); err != nil {
				return t.rows, err
			}
			return t.rows, bw.Flush()
		}
		if err != nil {
			return t.rows, err
		}
		if err := t.add(rec); err != nil {
			return t.rows, err
		}
	}
}

// table prints rows as aligned columns: widths are taken from the header
// and the first tableSample rows, held until then; later rows print as
// they come (a longer cell pushes its row's later cells right).
type table struct {
	w       io.Writer
	width   int
	widths  []int
	pending [][]string
	rows    int
	started bool
}

const tableSample = 1000

func (t *table) cut(s string) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if t.width > 0 && utf8.RuneCountInString(s) > t.width {
		r := []rune(s)
		return string(r[:t.width-1]) + "…"
	}
	return s
}

// add takes the header (first) or a row.
func (t *table) add(rec []string) error {
	cells := make([]string, len(rec))
	for i, v := range rec {
		cells[i] = t.cut(v)
	}
	if t.started {
		t.rows++
		return t.line(cells)
	}
	if len(t.pending) > 0 {
		t.rows++
	}
	t.pending = append(t.pending, cells)
	if len(t.pending) > tableSample {
		return t.flush()
	}
	return nil
}

// flush sizes the columns from what is held and prints it.
func (t *table) flush() error {
	t.started = true
	for _, row := range t.pending {
		for i, c := range row {
			if i >= len(t.widths) {
				t.widths = append(t.widths, 0)
			}
			t.widths[i] = max(t.widths[i], utf8.RuneCountInString(c))
		}
	}
	for k, row := range t.pending {
		if err := t.line(row); err != nil {
			return err
		}
		if k == 0 {
			sep := make([]string, len(row))
			for i := range sep {
				sep[i] = strings.Repeat("-", t.widths[i])
			}
			if err := t.line(sep); err != nil {
				return err
			}
		}
	}
	t.pending = nil
	return nil
}

func (t *table) line(vals []string) error {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteString("  ")
		}
		b.WriteString(v)
		if i < len(t.widths) {
			b.WriteString(strings.Repeat(" ", max(0, t.widths[i]-utf8.RuneCountInString(v))))
		}
	}
	b.WriteByte('\n')
	_, err := io.WriteString(t.w, b.String())
	return err
}

// close prints what is held.
func (t *table) close() error {
	if !t.started {
		return t.flush()
	}
	return nil
}
