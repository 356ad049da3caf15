package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"empties/internal/duck"
	"empties/internal/store"
)

type row struct {
	ID     int64   `parquet:"id"`
	Hash   string  `parquet:"hash"` // does not compress
	Text   string  `parquet:"text"` // compresses well
	Note   *string `parquet:"note,optional"`
	Weight float64 `parquet:"weight"`
}

func rows(n int) []row {
	out := make([]row, n)
	for i := range out {
		h := sha256.Sum256([]byte(fmt.Sprint(i)))
		out[i] = row{ID: int64(i), Hash: hex.EncodeToString(h[:]), Text: strings.Repeat("an empty reply ", i%50), Weight: float64(i) / 3}
		if i%3 == 0 {
			s := fmt.Sprintf("note %d", i)
			out[i].Note = &s
		}
	}
	return out
}

// Every compression writes files that parquet-go and DuckDB read back
// exactly, including pages of data that does not compress (which a broken
// codec writes as empty pages) and tables written through a Sink and
// through staged Writers.
func TestCompressionsRoundTrip(t *testing.T) {
	want := rows(5000)
	for _, name := range store.Compressions {
		t.Run(name, func(t *testing.T) {
			dir := writeSunkAndStaged(t, name, want, 2500, want[:1000], want[1000:])
			db, err := duck.Open("")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, table := range []string{"sunk", "staged"} {
				got, err := store.ReadAll[row](dir, table)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("%s: %d rows, want %d", table, len(got), len(want))
				}
				for i := range want {
					if got[i].ID != want[i].ID || got[i].Hash != want[i].Hash || got[i].Text != want[i].Text ||
						got[i].Weight != want[i].Weight || (got[i].Note == nil) != (want[i].Note == nil) {
						t.Fatalf("%s row %d: %+v, want %+v", table, i, got[i], want[i])
					}
				}
				var n, hashes, chars int64
				q := fmt.Sprintf("SELECT count(*), count(DISTINCT hash), sum(length(text)) FROM read_parquet(%s)", duck.Quote(store.TableGlob(dir, table)))
				if err := db.QueryRowContext(context.Background(), q).Scan(&n, &hashes, &chars); err != nil {
					t.Fatalf("%s: DuckDB: %v", table, err)
				}
				var wantChars int64
				for _, r := range want {
					wantChars += int64(len(r.Text))
				}
				if n != int64(len(want)) || hashes != int64(len(want)) || chars != wantChars {
					t.Errorf("%s: DuckDB reads %d rows, %d hashes, %d chars; want %d, %d, %d", table, n, hashes, chars, len(want), len(want), wantChars)
				}
			}
		})
	}
}

// writeSunkAndStaged writes rows into a new dataset compressed by
// compression, as two tables: "sunk" through a Sink (two writes, split at
// split) and "staged" through one Writer a part, each kept, then merged. It
// commits and returns the dataset's folder.
func writeSunkAndStaged[T any](t *testing.T, compression string, rows []T, split int, parts ...[]T) string {
	t.Helper()
	dir := t.TempDir()
	ds, err := store.Create(testStage, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if err := ds.SetCompression(compression); err != nil {
		t.Fatal(err)
	}
	sink, err := store.NewSink[T](ds, "sunk")
	if err != nil {
		t.Fatal(err)
	}
	sink.Write(rows[:split])
	sink.Write(rows[split:])
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	for _, part := range parts {
		w, err := store.NewWriter[T](ds, "staged")
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(part...); err != nil {
			t.Fatal(err)
		}
		if err := w.Keep(ds); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Merge[T](ds, "staged"); err != nil {
		t.Fatal(err)
	}
	if err := ds.Commit(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestSetCompressionRejectsUnknown(t *testing.T) {
	ds, err := store.Create(testStage, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if err := ds.SetCompression("lz4"); err == nil || !strings.Contains(err.Error(), "snappy") {
		t.Errorf("want an error listing the choices, got %v", err)
	}
}

// Every codec scripts/bench/codecs measures decodes what it encodes: text,
// repeats, random bytes (which LZ4 cannot compress) and an empty page.
func TestCandidateCodecsRoundTrip(t *testing.T) {
	random := make([]byte, 300_000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	pages := [][]byte{nil, []byte("x"), []byte(strings.Repeat("the model answered ", 20_000)), random}
	for name, c := range store.CandidateCodecs {
		for _, page := range pages {
			enc, err := c.Encode(nil, page)
			if err != nil {
				t.Fatalf("%s: encoding %d bytes: %v", name, len(page), err)
			}
			dec, err := c.Decode(nil, enc)
			if err != nil {
				t.Fatalf("%s: decoding %d bytes: %v", name, len(page), err)
			}
			if !bytes.Equal(dec, page) {
				t.Errorf("%s: %d bytes came back as %d", name, len(page), len(dec))
			}
		}
	}
}
