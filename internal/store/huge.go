package store

import (
	"reflect"
	"runtime"
	"runtime/debug"
	"sync"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
)

// A row holding a huge text (a reply of hundreds of megabytes) cost
// parquet-go many times its size (measured on a 200 MB reply: 2 GB):
// GenericWriter.Write copies every column of a batch into the column
// buffers before it flushes any of them to a page; a flush of a page of one
// value copies it once more (see lonePages); a flush encodes the page and
// compresses it into buffers that stay pooled at the size of the largest
// page; a replies row holds the text twice (text, final_completion) and its
// model_calls row once more, on sinks that write at the same time.
//
// So a row with a text of hugeText bytes or more is written on its own, one
// column at a time (a huge value fills its column buffer past the page size,
// so its page is written at once); before the row and after each huge
// column the buffers used are collected (releaseMemory), before the next
// column makes its own; the row group is then flushed to the file;
// and only one such row is written at a time in the process (hugeWrites).
// What one huge text costs the writer is then the column buffer's copy (in
// parquet-go's size class, up to 1.5 times the text) and the encoded page,
// with the compressed page beside it (make bench-monster: the 200 MB reply
// in 750 MiB peak RSS, the decoded text included). Rows below hugeText are
// written as before.
var hugeText = 16 << 20

var hugeWrites sync.Mutex

// SetHugeText sets the text length from which a row is written on its own
// and returns what restores it, for tests.
func SetHugeText(n int) (restore func()) {
	old := hugeText
	hugeText = n
	return func() { hugeText = old }
}

// rowWriter is a GenericWriter whose Write writes a row holding a huge text
// on its own (see hugeText).
type rowWriter[T any] struct {
	*parquet.GenericWriter[T]
	longest func(*T) int
}

func newRowWriter[T any](w *parquet.GenericWriter[T]) *rowWriter[T] {
	return &rowWriter[T]{GenericWriter: w, longest: longestText[T]()}
}

// Write writes rows in order, a row with a huge text alone.
func (w *rowWriter[T]) Write(rows []T) (int, error) {
	written, from := 0, 0
	for i := range rows {
		if w.longest(&rows[i]) < hugeText {
			continue
		}
		n, err := w.GenericWriter.Write(rows[from:i])
		written += n
		if err != nil {
			return written, err
		}
		if err := w.writeHuge(&rows[i]); err != nil {
			return written, err
		}
		written++
		from = i + 1
	}
	n, err := w.GenericWriter.Write(rows[from:])
	return written + n, err
}

func (w *rowWriter[T]) writeHuge(row *T) error {
	hugeWrites.Lock()
	defer hugeWrites.Unlock()
	// Deconstruct refers to the row's strings; it does not copy them.
	r := w.Schema().Deconstruct(nil, row)
	cols := w.ColumnWriters()
	releaseMemory(w.longest(row)) // and what the text's decoding left behind
	// The row goes to the column writers of the current row group one
	// column at a time. The row group writer does not count it against
	// MaxRowsPerRowGroup, which matters not: the row group is flushed next.
	var err error
	r.Range(func(i int, values []parquet.Value) bool {
		// A huge value fills its column buffer past the page size, so
		// WriteRowValues writes its page at once.
		if _, err = cols[i].WriteRowValues(values); err != nil {
			return false
		}
		for _, v := range values {
			if v.Kind() == parquet.ByteArray && len(v.ByteArray()) >= hugeText {
				releaseMemory(len(v.ByteArray()))
				break
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

// releaseMemory collects the buffers of a huge page just written (of a
// text of n bytes), before the next huge page makes its own: parquet-go
// keeps them in sync.Pools (its column buffers' slices, the page encoding
// and compression buffers), which a collection only moves to their victim
// caches; the second one drops them. For a text of giveBack bytes or more
// the free memory is given back to the system as well: the next buffers
// do not all fit in what was freed (decoding the text left it in small
// pieces), and the peak RSS of the 200 MB reply is 750 MiB instead of
// 834-900. Below, the page faults of touching that memory again would cost
// more than writing the text (17 MiB texts: 8 times as long).
func releaseMemory(n int) {
	runtime.GC()
	if n >= giveBack {
		debug.FreeOSMemory()
	} else {
		runtime.GC()
	}
}

const giveBack = 64 << 20

// longestText returns a function giving the length of the longest text of
// a row (textLengths).
func longestText[T any]() func(*T) int {
	lengths := textLengths[T]()
	return func(row *T) int {
		n := 0
		lengths(row, func(l int) { n = max(n, l) })
		return n
	}
}

// textBytes returns a function giving the length of all the texts of a row
// together (textLengths).
func textBytes[T any]() func(*T) int {
	lengths := textLengths[T]()
	return func(row *T) int {
		n := 0
		lengths(row, func(l int) { n += l })
		return n
	}
}

// textLengths returns a function calling fn with the length of each text of
// a row: its string, *string and []string fields (the tables' rows are flat
// structs; texts nested deeper are not looked at).
func textLengths[T any]() func(row *T, fn func(int)) {
	type field struct {
		off  uintptr
		kind reflect.Kind
	}
	var fields []field
	if t := reflect.TypeFor[T](); t.Kind() == reflect.Struct {
		str := reflect.TypeFor[string]()
		for i := range t.NumField() {
			f := t.Field(i)
			switch {
			case f.Type == str:
				fields = append(fields, field{f.Offset, reflect.String})
			case f.Type == reflect.TypeFor[*string]():
				fields = append(fields, field{f.Offset, reflect.Pointer})
			case f.Type == reflect.TypeFor[[]string]():
				fields = append(fields, field{f.Offset, reflect.Slice})
			}
		}
	}
	return func(row *T, fn func(int)) {
		for _, f := range fields {
			p := unsafe.Add(unsafe.Pointer(row), f.off)
			switch f.kind {
			case reflect.String:
				fn(len(*(*string)(p)))
			case reflect.Pointer:
				if s := *(**string)(p); s != nil {
					fn(len(*s))
				}
			case reflect.Slice:
				for _, s := range *(*[]string)(p) {
					fn(len(s))
				}
			}
		}
	}
}

// parquet-go copies a page's values into a scratch buffer before encoding
// them unless their offsets ascend, and a page of one value has a single
// offset, which it does not count as ascending (column_buffer_byte_array.go,
// page: orderOfUint32(offsets) < 1). The column buffer keeps that scratch
// buffer, at the size of the value, for as long as the file is written:
// one more copy of a huge text per text column. So the text columns are
// written through lonePages, which gives such a page without the copy.

// textSchema is the schema of T with every top-level text column's type
// wrapped by textType, and every top-level column compressed by
// codecOf(its path, its kind). The nodes are otherwise T's own (same order,
// names, repetition and types), so parquet-go still maps T's fields to
// columns directly (EqualNodes holds) and writes the same bytes.
func textSchema[T any](codecOf func([]string, parquet.Kind) compress.Codec) *parquet.Schema {
	sch := parquet.SchemaOf(new(T))
	fields := sch.Fields()
	wrapped := make([]parquet.Field, len(fields))
	for i, f := range fields {
		wrapped[i] = f
		if !f.Leaf() {
			continue
		}
		kind := f.Type().Kind()
		var typ parquet.Type
		if kind == parquet.ByteArray {
			typ = textType{f.Type()}
		}
		wrapped[i] = column{f, typ, codecOf([]string{f.Name()}, kind)}
	}
	return parquet.NewSchema(sch.Name(), fieldsNode{sch, wrapped})
}

type fieldsNode struct {
	parquet.Node
	fields []parquet.Field
}

func (n fieldsNode) Fields() []parquet.Field { return n.fields }

// column is a top-level leaf field with its codec and, for a text column,
// its textType.
type column struct {
	parquet.Field
	typ   parquet.Type // nil: the field's own
	codec compress.Codec
}

func (c column) Type() parquet.Type {
	if c.typ != nil {
		return c.typ
	}
	return c.Field.Type()
}

func (c column) Compression() compress.Codec { return c.codec }

type textType struct{ parquet.Type }

func (t textType) NewColumnBuffer(columnIndex, numValues int) parquet.ColumnBuffer {
	return lonePages{t.Type.NewColumnBuffer(columnIndex, numValues), t.Type}
}

// lonePages is a text column's buffer whose page of one value refers to the
// value where the buffer holds it.
type lonePages struct {
	parquet.ColumnBuffer
	typ parquet.Type
}

func (c lonePages) Page() parquet.Page {
	if c.Len() != 1 {
		return c.ColumnBuffer.Page()
	}
	var v [1]parquet.Value
	if n, _ := c.ReadValuesAt(v[:], 0); n != 1 || v[0].IsNull() {
		return c.ColumnBuffer.Page()
	}
	b := v[0].ByteArray() // the buffer's bytes, not a copy
	return c.typ.NewPage(c.Column(), 1, encoding.ByteArrayValues(b, []uint32{0, uint32(len(b))}))
}
