package store

// The write path of the tables schema/ declares: a stage writes a table
// through its schema.Table value (WriterOf, SinkOf, MergeTable, WriteTable,
// RewriteTable), and every way into a table's folder (those, and the
// name-based NewWriter, NewSink, Merge, Rewrite, FilterParts, CompactParts
// and TableDir under them) refuses a stage that is not one of the table's
// writers, and a row type that is not the table's.

import (
	"fmt"
	"reflect"
	"strings"

	"empties/schema"
)

// FixtureWriter is the stage name of a test's fixture writer, which may
// write every table, as the stages together would (testutil.Fixture). No
// stage and no command uses it (TestOnlyTestsWriteFixtures).
const FixtureWriter = "fixture"

// mayWrite refuses to let d's stage write a table of schema/ it is not a
// writer of, or write it with rows of another type than schema/'s (row, when
// not nil). A table schema/ does not declare (an analysis output, a stage's
// scratch table) may be written by any stage.
func (d *Dataset) mayWrite(table string, row reflect.Type) error {
	t, ok := schema.Lookup(table)
	if !ok {
		return nil
	}
	writers := t.Writers()
	allowed := d.by.Name == FixtureWriter
	for _, w := range writers {
		allowed = allowed || (w == d.by.Name && w != "")
	}
	if !allowed {
		who := d.by.Name
		if who == "" {
			who = "a dataset writer that names no stage"
		}
		return fmt.Errorf("%s may not write table %s: it is written by %s only (schema/ declares its writers); run `empties %s` to rebuild it",
			who, table, strings.Join(writers, " and "), t.Owner)
	}
	if want := reflect.TypeOf(t.Row); row != nil && row != want {
		return fmt.Errorf("table %s holds rows of schema.%s, not %s", table, want.Name(), row)
	}
	return nil
}

// rowType is the reflect type of T.
func rowType[T any]() reflect.Type { return reflect.TypeOf((*T)(nil)).Elem() }

// WriterOf opens a staged file for a table of schema/ (NewWriter).
func WriterOf[T any](d *Dataset, t schema.Table[T]) (*Writer[T], error) {
	return NewWriter[T](d, t.Name)
}

// SinkOf opens a sink for a table of schema/ whose first part file is
// part-<first>.parquet (NewSinkAt).
func SinkOf[T any](d *Dataset, t schema.Table[T], first int) (*Sink[T], error) {
	return NewSinkAt[T](d, t.Name, first)
}

// MergeTable writes a table's final files from its staged files (Merge).
func MergeTable[T any](d *Dataset, t schema.Table[T]) error { return Merge[T](d, t.Name) }

// RewriteTable stages a table of the committed dataset again with every row
// passed through edit (Rewrite).
func RewriteTable[T any](d *Dataset, t schema.Table[T], edit func(*T) error) error {
	return Rewrite(d, t.Name, edit)
}

// WriteTable writes rows as the whole of a table in the next generation:
// one staged file, merged.
func WriteTable[T any](d *Dataset, t schema.Table[T], rows []T) error {
	w, err := WriterOf(d, t)
	if err != nil {
		return err
	}
	if err := w.Write(rows...); err != nil {
		w.Discard()
		return err
	}
	if err := w.Keep(d); err != nil {
		return err
	}
	return MergeTable(d, t)
}
