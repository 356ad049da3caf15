package store

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// Page compression. A file empties writes compresses each column by the
// codec its kind is given here (columnCodec), and nowhere else is the
// choice made.

// compression is the page compression of the files a dataset writes: a
// codec per column kind.
type compression struct {
	name   string
	byKind [numKinds]compress.Codec
}

// columnKind is what a column holds, as far as compressing it goes.
type columnKind int

const (
	// byteArrayColumn: strings (texts, JSON, ids, names, classes) and the
	// items of lists of strings.
	byteArrayColumn columnKind = iota
	// fixedColumn: numbers and booleans.
	fixedColumn
	numKinds
)

func kindOf(k parquet.Kind) columnKind {
	if k == parquet.ByteArray || k == parquet.FixedLenByteArray {
		return byteArrayColumn
	}
	return fixedColumn
}

// codec returns the codec of a column of Parquet kind k.
func (c *compression) codec(k parquet.Kind) compress.Codec { return c.byKind[kindOf(k)] }

// Compressions are the page compressions a dataset can be written with, by
// the names `empties ingest --compression` takes. Every Parquet reader the
// project meets (DuckDB, pyarrow, polars) reads all of them. (parquet-go's
// LZ4_RAW writer is not offered: it writes an empty page where the data does
// not compress.)
var Compressions = []string{"snappy", "zstd", "none"}

// DefaultCompression is Snappy, written by s2's fast encoder: on ingest's
// text-heavy tables it costs less than half the CPU time of zstd's fastest
// level, for files about a third larger (make bench; see README).
const DefaultCompression = "snappy"

// compressions are shared by every writer: building a zstd encoder per file
// was a measurable share of ingest time on small logs.
var compressions = map[string]*compression{
	"zstd":   uniform("zstd", &zstd.Codec{Level: zstd.SpeedFastest}),
	"snappy": uniform("snappy", &fastSnappy{}),
	"none":   uniform("none", &uncompressed.Codec{}),
}

func uniform(name string, c compress.Codec) *compression {
	var k [numKinds]compress.Codec
	for i := range k {
		k[i] = c
	}
	return &compression{name: name, byKind: k}
}

// SetCompression chooses the page compression of the files d writes from now
// on, by one of the names in Compressions.
func (d *Dataset) SetCompression(name string) error {
	c, ok := compressions[name]
	if !ok {
		return fmt.Errorf("unknown compression %q (one of %s)", name, strings.Join(Compressions, ", "))
	}
	d.codec = c
	return nil
}

// fastSnappy writes standard Snappy blocks with s2's fast encoder. parquet-go's
// own Snappy codec calls klauspost's snappy.Encode, which is s2's "better"
// mode: smaller pages for half the speed, and half of ingest's writing time.
type fastSnappy struct{ snappy.Codec }

func (*fastSnappy) Encode(dst, src []byte) ([]byte, error) {
	n := s2.MaxEncodedLen(len(src))
	if n < 0 {
		return nil, fmt.Errorf("snappy: page of %d bytes is too large", len(src))
	}
	if len(src) > snappyChunk {
		return encodeSnappyChunked(dst[:0], src), nil
	}
	return s2.EncodeSnappy(slices.Grow(dst[:0], n)[:n], src), nil
}

// lz4Raw writes LZ4_RAW pages (one LZ4 block each) with pierrec/lz4's fast
// compressor, whose hash tables are pooled.
type lz4Raw struct{}

func (lz4Raw) String() string                            { return "LZ4_RAW" }
func (lz4Raw) CompressionCodec() format.CompressionCodec { return format.Lz4Raw }

var lz4Compressors = sync.Pool{New: func() any { return new(lz4.Compressor) }}

func (lz4Raw) Encode(dst, src []byte) ([]byte, error) {
	bound := lz4.CompressBlockBound(len(src))
	dst = slices.Grow(dst[:0], bound)[:bound]
	c := lz4Compressors.Get().(*lz4.Compressor)
	n, err := c.CompressBlock(src, dst)
	lz4Compressors.Put(c)
	if err != nil {
		return nil, err
	}
	if n == 0 && len(src) > 0 {
		return nil, fmt.Errorf("lz4: page of %d bytes not compressed", len(src))
	}
	return dst[:n], nil
}

func (lz4Raw) Decode(dst, src []byte) ([]byte, error) {
	for n := max(3*len(src), 1024); ; n *= 2 {
		dst = slices.Grow(dst[:0], n)[:n]
		k, err := lz4.UncompressBlock(src, dst)
		if err == nil {
			return dst[:k], nil
		}
		if n > 1<<31 {
			return nil, err
		}
	}
}

// CandidateCodecs are the codecs scripts/bench/codecs measures, by name.
var CandidateCodecs = map[string]compress.Codec{
	"none":          &uncompressed.Codec{},
	"snappy":        &fastSnappy{},
	"snappy-better": &snappy.Codec{},
	"lz4":           lz4Raw{},
	"zstd-fastest":  &zstd.Codec{Level: zstd.SpeedFastest},
	"zstd-default":  &zstd.Codec{Level: zstd.SpeedDefault},
}

// RowWriter writes rows of T into one Parquet file.
type RowWriter[T any] interface {
	Write(rows []T) (int, error)
	Close() error
}

// NewWriterWith returns a writer of rows of T into w, written as a
// dataset's files are but with each top-level column compressed by
// codecOf(its path, its Parquet kind), and the items of lists by
// codecOf(nil, ByteArray): for scripts/bench/codecs.
func NewWriterWith[T any](w io.Writer, codecOf func(column []string, kind parquet.Kind) compress.Codec) RowWriter[T] {
	var k [numKinds]compress.Codec
	k[byteArrayColumn], k[fixedColumn] = codecOf(nil, parquet.ByteArray), codecOf(nil, parquet.Int64)
	return newParquetWriterOf[T](w, &compression{name: "custom", byKind: k}, codecOf)
}
