package store

import (
	"os"
	"path/filepath"
	"testing"
)

type partRow struct {
	N int64 `parquet:"n"`
}

// A table's rows go to a new part file once the current one is full, in
// order, and the first file exists even with no rows.
func TestPartsRollOver(t *testing.T) {
	dir := t.TempDir()
	p, err := newParts[partRow](dir, compressions[DefaultCompression])
	if err != nil {
		t.Fatal(err)
	}
	p.limit = 10
	for i := int64(0); i < 25; i += 5 {
		batch := []partRow{{i}, {i + 1}, {i + 2}, {i + 3}, {i + 4}}
		if err := p.Write(batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "part-*.parquet"))
	var want int64
	for i, f := range files {
		var got []partRow
		if err := ReadFile(f, func(rows []partRow) error { got = append(got, rows...); return nil }); err != nil {
			t.Fatal(err)
		}
		if wantLen := []int{10, 10, 5}[min(i, 2)]; len(got) != wantLen {
			t.Errorf("%s: %d rows, want %d", filepath.Base(f), len(got), wantLen)
		}
		for _, r := range got {
			if r.N != want {
				t.Fatalf("%s: row %d, want %d", filepath.Base(f), r.N, want)
			}
			want++
		}
	}
	if len(files) != 3 || want != 25 {
		t.Fatalf("%d files, %d rows", len(files), want)
	}

	empty := t.TempDir()
	p, err = newParts[partRow](empty, compressions[DefaultCompression])
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(empty, "part-00000.parquet")); err != nil {
		t.Errorf("a table with no rows has no file: %v", err)
	}
}
