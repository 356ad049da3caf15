package store

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

type keyedRow struct {
	Key string `parquet:"key"`
	N   int64  `parquet:"n"`
}

// FilterParts links a part that keeps every row (the same inode: nothing
// written), writes again one that loses some, leaves out one that loses
// all, and the rows added after it go to new part files, numbered on.
func TestFilterPartsKeepsLinksAndAppends(t *testing.T) {
	d, err := Create(Stage{}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s, err := NewSink[keyedRow](d, "t")
	if err != nil {
		t.Fatal(err)
	}
	s.Write([]keyedRow{{"a", 1}, {"a", 2}, {"b", 3}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	dir, _ := d.TableDir("t")
	for i, rows := range [][]keyedRow{{{"c", 4}, {"d", 5}}, {{"e", 6}}} {
		p, err := newPartsAt[keyedRow](dir, d.codec, i+1)
		if err != nil {
			t.Fatal(err)
		}
		p.Write(rows)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	before, _ := d.CurrentFiles("t")
	if len(before) != 3 {
		t.Fatalf("%d parts, want 3", len(before))
	}
	inos := []uint64{ino(t, before[0]), ino(t, before[1])}

	keep := func(k string) bool { return k != "b" && k != "e" } // part 0 loses a row, part 2 all; part 1 none
	next, dropped, err := FilterParts(d, "t", "key", keep, func(r *keyedRow) string { return r.Key })
	if err != nil {
		t.Fatal(err)
	}
	if next != 3 || dropped != 2 {
		t.Errorf("next part %d, dropped %d; want 3, 2", next, dropped)
	}
	s, err = NewSinkAt[keyedRow](d, "t", next)
	if err != nil {
		t.Fatal(err)
	}
	s.Write([]keyedRow{{"f", 7}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	after, _ := d.CurrentFiles("t")
	var names []string
	var got []keyedRow
	for _, f := range after {
		names = append(names, filepath.Base(f))
		ReadFile(f, func(rows []keyedRow) error { got = append(got, rows...); return nil })
	}
	if want := []string{"part-00000.parquet", "part-00001.parquet", "part-00003.parquet"}; !slices.Equal(names, want) {
		t.Errorf("parts %v, want %v", names, want)
	}
	if want := []keyedRow{{"a", 1}, {"a", 2}, {"c", 4}, {"d", 5}, {"f", 7}}; !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	if ino(t, after[1]) != inos[1] {
		t.Error("part 1 kept every row but was written again, not linked")
	}
	if ino(t, after[0]) == inos[0] {
		t.Error("part 0 lost a row but is the old file")
	}
}

func ino(t *testing.T, p string) uint64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}

// oldKeyedRow is keyedRow as an older build wrote it: n was text.
type oldKeyedRow struct {
	Key string `parquet:"key"`
	N   string `parquet:"n"`
}

// A part whose every row is dropped is left out unread, so that a part of
// an older schema (an upgrade changed ingest_version with the tables, and
// every log of that build is read again) does not stop the next ingest: a
// dataset built before typed timestamps failed with "STRING to INT64".
func TestFilterPartsDropsAnOlderSchemaUnread(t *testing.T) {
	d, err := Create(Stage{}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s, err := NewSink[oldKeyedRow](d, "t")
	if err != nil {
		t.Fatal(err)
	}
	s.Write([]oldKeyedRow{{"a", "2026-11-30T06:15:59+00:00"}, {"b", "x"}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	next, dropped, err := FilterParts(d, "t", "key", func(string) bool { return false }, func(r *keyedRow) string { return r.Key })
	if err != nil {
		t.Fatalf("dropping every row of an older part: %v", err)
	}
	if next != 1 || dropped != 2 {
		t.Errorf("next part %d, dropped %d; want 1, 2", next, dropped)
	}
	// The same part with one row kept must be read, and its type is wrong:
	// the error names the file rather than keeping rows it cannot read.
	_, _, err = FilterParts(d, "t", "key", func(k string) bool { return k == "a" }, func(r *keyedRow) string { return r.Key })
	if err == nil {
		t.Error("an older part with a row kept was read as the new type without an error")
	}
}
