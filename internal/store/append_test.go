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
	d, err := Create(t.TempDir())
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

// A part that loses every row is left out unread, whatever its other
// columns hold: a dataset written before a column changed type (a new
// ingest_version makes ingest read every file again, so no row is kept)
// is re-ingested, not refused with "STRING to INT64".
func TestFilterPartsLeavesOutAnOlderSchemaUnread(t *testing.T) {
	type olderRow struct {
		Key string `parquet:"key"`
		N   string `parquet:"n"` // keyedRow's n is an INT64 now
	}
	d, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s, err := NewSink[olderRow](d, "t")
	if err != nil {
		t.Fatal(err)
	}
	s.Write([]olderRow{{"a", "2026-11-30T06:15:40+00:00"}, {"b", "x"}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	next, dropped, err := FilterParts(d, "t", "key", func(string) bool { return false }, func(r *keyedRow) string { return r.Key })
	if err != nil || next != 1 || dropped != 2 {
		t.Fatalf("next %d, dropped %d, %v; want 1, 2, no error", next, dropped, err)
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if after, _ := d.CurrentFiles("t"); len(after) != 0 {
		t.Errorf("parts %v, want none", after)
	}
}
