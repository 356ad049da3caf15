package store

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/parquet-go/parquet-go"
)

// A page compressed a chunk at a time is a Snappy block that decodes to
// the page, whether it compresses or not and wherever its end falls
// against the chunks.
func TestEncodeSnappyChunked(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 3*snappyChunk+17)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	prose := []byte(strings.Repeat("the model answered that a response was given ", 400_000))
	for _, tc := range []struct {
		name string
		src  []byte
	}{
		{"one byte past a chunk, random", random[:snappyChunk+1]},
		{"two chunks exactly, random", random[:2*snappyChunk]},
		{"three chunks and a tail, random", random},
		{"prose", prose},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc, err := (&fastSnappy{}).Encode([]byte("left over"), tc.src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := snappy.Decode(nil, enc)
			if err != nil {
				t.Fatalf("snappy.Decode: %v", err)
			}
			if !bytes.Equal(got, tc.src) {
				t.Fatalf("decoded %d bytes differ from the %d encoded", len(got), len(tc.src))
			}
			if tc.name == "prose" && len(enc) > len(tc.src)/4 {
				t.Errorf("prose compressed to %d of %d bytes", len(enc), len(tc.src))
			}
		})
	}
}

type textRow struct {
	ID   int64    `parquet:"id"`
	Text string   `parquet:"text"`
	Note *string  `parquet:"note,optional"`
	Tags []string `parquet:"tags,list"`
}

// The text columns' wrapped schema and lone pages change nothing in the
// files of rows below hugeText: a file of one row (a page of one value in
// every column) and one of many rows are byte for byte what parquet-go
// writes with T's own schema.
func TestTextSchemaWritesTheSameBytes(t *testing.T) {
	note := "a note"
	for _, n := range []int{1, 2, 20_000} {
		rows := make([]textRow, n)
		for i := range rows {
			rows[i] = textRow{ID: int64(i), Text: strings.Repeat("reply ", i%300+1), Tags: []string{"a", "b"}[:i%3%2+1]}
			if i%2 == 0 {
				rows[i].Note = &note
			}
		}
		for name, codec := range compressions {
			var got, want bytes.Buffer
			w := newParquetWriter[textRow](&got, codec)
			sch := parquet.SchemaOf(new(textRow))
			plain := parquet.NewGenericWriter[textRow](&want, append(writerOptions(sch, codec), sch)...)
			for _, err := range []error{write(w, rows), w.Close(), write(plain, rows), plain.Close()} {
				if err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%d rows, %s: the file differs from parquet-go's own (%d vs %d bytes)", n, name, got.Len(), want.Len())
			}
		}
	}
}

func write[W interface{ Write([]textRow) (int, error) }](w W, rows []textRow) error {
	_, err := w.Write(rows)
	return err
}

func TestLongestText(t *testing.T) {
	long, short := strings.Repeat("x", 70), "y"
	longest := longestText[textRow]()
	for _, tc := range []struct {
		row  textRow
		want int
	}{
		{textRow{ID: 1 << 40}, 0},
		{textRow{Text: long, Note: &short}, 70},
		{textRow{Text: short, Note: &long}, 70},
		{textRow{Tags: []string{short, long, short}}, 70},
	} {
		if got := longest(&tc.row); got != tc.want {
			t.Errorf("%+v: %d, want %d", tc.row, got, tc.want)
		}
	}
}
