package store_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"empties/internal/duck"
	"empties/internal/store"
	"empties/internal/testutil"
)

type hugeRow struct {
	ID   int64    `parquet:"id"`
	Text string   `parquet:"text"`
	Note *string  `parquet:"note,optional"`
	Tags []string `parquet:"tags,list"`
}

// randomText is n bytes of hex from a seeded source: it does not compress,
// so its pages are as big in the file as in memory.
func randomText(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n/2+1)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return hex.EncodeToString(b)[:n]
}

// Rows with huge texts among ordinary ones (written alone, column by
// column, each flushing its row group) read back in order and equal, by
// parquet-go and by DuckDB, for every compression, through a Sink and
// through staged Writers: a huge text in a required column, in an optional
// one (and null there), in a list, as the first and the last row, and one
// of 5 MiB that Snappy compresses a chunk at a time.
func TestHugeRowsRoundTrip(t *testing.T) {
	defer store.SetHugeText(300 << 10)()
	big, bigger := randomText(400<<10, 1), randomText(5<<20+3, 2)
	prose := strings.Repeat("an answer of many words ", 20_000)
	var want []hugeRow
	add := func(r hugeRow) { r.ID = int64(len(want)); want = append(want, r) }
	add(hugeRow{Text: big}) // the first row, alone in its pages
	for i := range 300 {
		note := fmt.Sprint("note ", i)
		add(hugeRow{Text: strings.Repeat("reply ", i%40), Note: &note, Tags: []string{"t"}})
	}
	add(hugeRow{Text: "short", Note: &bigger, Tags: []string{"a", big}})
	add(hugeRow{Text: prose, Note: &prose})
	for i := range 50 {
		add(hugeRow{Text: fmt.Sprint("after ", i)})
	}
	add(hugeRow{Text: bigger, Tags: []string{}}) // the last row

	for _, name := range store.Compressions {
		t.Run(name, func(t *testing.T) {
			dir := writeSunkAndStaged(t, name, want, 100, want)
			db, err := duck.Open("")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, table := range []string{"sunk", "staged"} {
				got, err := store.ReadAll[hugeRow](dir, table)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("%s: %d rows, want %d", table, len(got), len(want))
				}
				for i := range want {
					if len(want[i].Tags) == 0 {
						got[i].Tags = want[i].Tags // nil and empty read back alike
					}
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Fatalf("%s: row %d differs (text %d bytes, want %d)", table, i, len(got[i].Text), len(want[i].Text))
					}
				}
				q := fmt.Sprintf(`SELECT id, md5(text), coalesce(md5(note), 'null'), coalesce(md5(list_aggregate(tags, 'string_agg', '|')), '')
					FROM read_parquet(%s) ORDER BY id`, duck.Quote(store.TableGlob(dir, table)))
				rs, err := db.QueryContext(context.Background(), q)
				if err != nil {
					t.Fatalf("%s: DuckDB: %v", table, err)
				}
				n := 0
				for rs.Next() {
					var id int64
					var text, note, tags string
					if err := rs.Scan(&id, &text, &note, &tags); err != nil {
						t.Fatal(err)
					}
					r := want[n]
					wantNote := "null"
					if r.Note != nil {
						wantNote = sum(*r.Note)
					}
					wantTags := ""
					if len(r.Tags) > 0 {
						wantTags = sum(strings.Join(r.Tags, "|"))
					}
					if id != r.ID || text != sum(r.Text) || note != wantNote || tags != wantTags {
						t.Fatalf("%s: DuckDB reads row %d as id %d, md5s %s %s %s", table, n, id, text, note, tags)
					}
					n++
				}
				if err := rs.Err(); err != nil {
					t.Fatal(err)
				}
				rs.Close()
				if n != len(want) {
					t.Errorf("%s: DuckDB reads %d rows, want %d", table, n, len(want))
				}
			}
		})
	}
}

// proseText is n bytes of words, which compress as a model's prose does
// (Snappy: about 5:1).
func proseText(n int) string {
	words := strings.Fields("the model answered that a response was given on each step of the task and then it checked the tool output before it wrote")
	rng := rand.New(rand.NewPCG(4, 4))
	var b strings.Builder
	b.Grow(n + 16)
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()[:n]
}

func sum(s string) string {
	h := md5.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

type replyRow struct {
	ID              int64   `parquet:"id"`
	Text            string  `parquet:"text"`
	FinalCompletion *string `parquet:"final_completion,optional"`
}

type callRow struct {
	ID   int64  `parquet:"id"`
	Text string `parquet:"text"`
}

// One huge text of prose written three times on two sinks at once, as
// ingest writes a huge reply (replies.text, replies.final_completion,
// model_calls.text), peaks the Go heap at about four times its size: one
// column buffer's copy (in parquet-go's size class, up to 1.5 times the
// text), the encoded page, the compressed pages (the text's own copy is in
// the heap before). Written as other rows are (all columns copied before any
// is flushed, a scratch copy per page of one value, pooled buffers at the
// largest page's size, both sinks at once) it peaked at 10 times (measured
// before the change: 526 MiB for 48 MiB).
func TestHugeTextWriterHeap(t *testing.T) {
	const size = 48 << 20
	text := proseText(size)
	dir := t.TempDir()
	ds, err := store.Create(testStage, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	replies, err := store.NewSink[replyRow](ds, "big_replies")
	if err != nil {
		t.Fatal(err)
	}
	calls, err := store.NewSink[callRow](ds, "big_calls")
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	peak := testutil.PeakHeap(time.Millisecond, func() {
		replies.Write([]replyRow{{ID: 1, Text: text, FinalCompletion: &text}})
		calls.Write([]callRow{{ID: 1, Text: text}})
		if err := replies.Close(); err != nil {
			t.Error(err)
		}
		if err := calls.Close(); err != nil {
			t.Error(err)
		}
	})
	over := float64(peak-min(peak, base.HeapAlloc)) / size
	t.Logf("Go heap peak %d MiB over %d MiB before, %.1f times the text", peak>>20, base.HeapAlloc>>20, over)
	if over > 5 {
		t.Errorf("writing a %d MiB text three times peaked the Go heap at %.1f times its size (want at most 5)", size>>20, over)
	}
}
