package evallog

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// valueByteWalk is scanner.value as it was before rangeBlocks, kept as the
// oracle the range scan is held to.
func (s *scanner) valueByteWalk(dst []byte) ([]byte, error) {
	if _, err := s.peekNonSpace(); err != nil {
		return nil, err
	}
	depth := 0
	inString := false
	escaped := false
	scalar := false
	buf, pos, start := s.buf, s.pos, s.pos
	done := func() ([]byte, error) {
		s.pos = pos
		if dst != nil {
			dst = append(dst, buf[start:pos]...)
		}
		return dst, nil
	}
	for {
		for pos < len(buf) {
			if inString {
				if escaped { // the escaped byte was cut off by the last refill
					pos++
					escaped = false
				}
				// Jump over the string body from quote or backslash to the
				// next: long texts are most of a log's bytes.
				for {
					pos = nextQuoteOrBackslash(buf, pos)
					if pos < 0 {
						pos = len(buf)
						break
					}
					if buf[pos] == '"' {
						inString = false
						pos++
						break
					}
					if pos+1 >= len(buf) { // a backslash ends the buffer
						escaped = true
						pos = len(buf)
						break
					}
					pos += 2
				}
				if !inString && depth == 0 {
					return done()
				}
				continue
			}
			switch buf[pos] {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				if depth == 0 { // end of a scalar inside a container
					return done()
				}
				depth--
				if depth == 0 {
					pos++
					return done()
				}
			case ',', ' ', '\t', '\r', '\n':
				if depth == 0 && scalar {
					return done()
				}
			default:
				if depth == 0 {
					scalar = true
				}
			}
			pos++
			if depth > 0 && !inString {
				// Inside a container only quotes and brackets count:
				// indentation, numbers and literals are passed 8 bytes at
				// a time.
				pos = nextStructural(buf, pos)
			}
		}
		s.pos = pos
		if dst != nil {
			dst = append(dst, buf[start:pos]...)
			if s.limit > 0 && int64(len(dst)) > s.limit {
				return nil, fmt.Errorf("a value of more than the cap of %d bytes (ingest --max-member-mb)", s.limit)
			}
		}
		if err := s.fill(); err != nil {
			if err == errUnexpectedEOF && scalar && depth == 0 && !inString {
				return dst, nil
			}
			return nil, err
		}
		buf, pos, start = s.buf, s.pos, s.pos
	}
}

// countingReader counts the bytes read through it, so that a test can
// tell that two scans read the same bytes by the time they return.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// scanResult is what one value call gives and leaves.
type scanResult struct {
	got    string
	err    string
	offset int64
	read   int64
	eof    bool
}

func scanOnce(doc string, size int, capture, byteWalk bool) scanResult {
	cr := &countingReader{r: strings.NewReader(doc)}
	s := &scanner{r: cr, buf: make([]byte, 0, size)}
	var dst []byte
	if capture {
		dst = []byte{}
	}
	var got []byte
	var err error
	if byteWalk {
		got, err = s.valueByteWalk(dst)
	} else {
		got, err = s.value(dst)
	}
	r := scanResult{got: string(got), offset: s.offset(), read: cr.n, eof: s.eof}
	if err != nil {
		r.err = err.Error()
	}
	return r
}

// checkRangeScan fails t where value, with the range scan, gives other
// bytes, another error, another end or another read of doc than the byte
// walk, skipping and capturing, with a buffer of size bytes.
func checkRangeScan(t *testing.T, doc string, size int) {
	t.Helper()
	if !simdRanges {
		t.Skip("no range scan on this CPU")
	}
	for _, capture := range []bool{false, true} {
		want := scanOnce(doc, size, capture, true)
		got := scanOnce(doc, size, capture, false)
		if got != want {
			t.Fatalf("buffer %d, capture %v, %q:\nrange scan %+v\nbyte walk  %+v", size, capture, clip(doc), got, want)
		}
	}
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:150] + "…" + s[len(s)-150:]
	}
	return s
}

// hostileValues are containers at the edges of the range scan: backslash
// runs of every length before a quote, backslashes outside strings,
// brackets in strings, unbalanced and truncated values, control bytes.
func hostileValues() []string {
	var docs []string
	for run := 0; run <= 5; run++ {
		bs := strings.Repeat(`\`, run)
		for lead := 0; lead < 70; lead += 3 {
			pad := strings.Repeat("x", lead)
			docs = append(docs,
				`{"a": "`+pad+bs+`"}, "b": [1, {"c": "}]"}]}`,
				`[["`+pad+bs+`"]"]], 1]`,
				`{"k": [`+pad+bs+`"{"]}`,
				`[`+pad+bs+`"]", "]"]`,
				`{"`+pad+`": "`+bs+bs+`\"`+`"}`)
		}
	}
	long := strings.Repeat(`{"t": "a \"quoted\" } ] { [ text\\", "n": [1, 2.5, null, true]}, `, 12)
	docs = append(docs,
		`[`+long+`{}]`, `{"x": [`+long+`{}]}`, `[`+long, `[`+long+`]]]]`, `[`+long+`}`,
		`[`+strings.Repeat("[", 300)+strings.Repeat("]", 300)+`]`,
		`[`+strings.Repeat("[", 300)+strings.Repeat("]", 299),
		`{"a": "`+strings.Repeat("é\u2028\x00\x1f", 40)+`"}`,
		`[`+strings.Repeat(" ", 200)+`]`, `[`+strings.Repeat("\\", 130)+`]`, `["`+strings.Repeat("\\", 131)+`"]`,
		`["`+strings.Repeat("\\", 130)+`"]`, `[1, 2, \"x"]`+strings.Repeat(" ", 100), `[`+strings.Repeat(`"\\",`, 40)+`"\"]`,
		`{"a": 1}`+strings.Repeat(`\`, 100), `[`+strings.Repeat(`"a\"b\\"`, 30)+`]`, `[{]}`+strings.Repeat(" ", 80),
		`{"a": [}`+strings.Repeat("x", 100)+`]`, `[`+strings.Repeat(`"`, 129)+`]`, `[`+strings.Repeat(`"`, 128)+`]`)
	return docs
}

var rangeBufferSizes = []int{1, 7, 63, 64, 65, 100, 127, 128, 129, 200, 1000, 1 << 20}

// The range scan gives the byte walk's end, bytes, error and reads on
// hostile values, every one cut at every place, with buffers that put
// every byte at a block's and a refill's edge.
func TestRangeScanAsByteWalk(t *testing.T) {
	for _, doc := range hostileValues() {
		for _, size := range rangeBufferSizes {
			checkRangeScan(t, doc+" ,", size)
			checkRangeScan(t, doc, size)
		}
		for cut := 1; cut < len(doc); cut += 1 + cut/16 {
			checkRangeScan(t, doc[:cut], 64)
			checkRangeScan(t, doc[:cut]+`\`+doc[cut:], 100)
		}
	}
}

// jsonLogs are the .json logs of the fixtures, the malformed logs and the
// shared corpora.
func jsonLogs(t *testing.T) []string {
	var paths []string
	for _, dir := range []string{testutil.Path(t, "testdata", "logs"), testutil.Path(t, "testdata", "malformed"), testutil.SharedCorpus(t)} {
		filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, "EXPECT.json") {
				paths = append(paths, p)
			}
			return nil
		})
	}
	if len(paths) < 40 {
		t.Fatalf("only %d .json logs", len(paths))
	}
	return paths
}

// openResult is what opening a .json log gives.
type openResult struct {
	err     string
	sha     string
	header  Header
	source  string
	samples []SampleRef
}

func openJSONWith(t *testing.T, p string, ranges bool) openResult {
	t.Helper()
	defer func(old bool) { simdRanges = old }(simdRanges)
	simdRanges = ranges && hasRangeBlocks
	l, err := Open(p)
	if err != nil {
		return openResult{err: err.Error()}
	}
	defer l.Close()
	r := openResult{sha: l.SHA256, header: l.Header, source: l.HeaderSource, samples: l.Samples}
	for i := range r.samples {
		r.samples[i].log = nil
	}
	return r
}

// Every .json log of the fixtures, the malformed logs and the shared
// corpora, whole and damaged (cut, a backslash or a quote put in, a
// bracket taken out, at places spread over it), opens the same with the
// range scan as with the byte walk: the same samples' places, header,
// hash, or the same error.
func TestRangeScanOpensAsByteWalk(t *testing.T) {
	if !hasRangeBlocks {
		t.Skip("no range scan on this CPU")
	}
	dir := t.TempDir()
	n := 0
	for _, p := range jsonLogs(t) {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		variants := [][]byte{body}
		for k := 1; k <= 6; k++ {
			at := len(body) * k / 7
			variants = append(variants,
				body[:at],
				splice(body, at, `\`),
				splice(body, at, `"`),
				splice(body, at, `\\\"`),
				splice(body, at, "\x00"),
				drop(body, bytes.IndexAny(body[at:], "]}"), at))
		}
		for i, v := range variants {
			q := filepath.Join(dir, fmt.Sprintf("v%d.json", i))
			if err := os.WriteFile(q, v, 0o644); err != nil {
				t.Fatal(err)
			}
			want, got := openJSONWith(t, q, false), openJSONWith(t, q, true)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, variant %d: the range scan opens it as\n%+v\nthe byte walk as\n%+v", p, i, got, want)
			}
			n++
		}
	}
	t.Logf("%d logs opened alike", n)
}

func splice(b []byte, at int, s string) []byte {
	return append(append(append([]byte{}, b[:at]...), s...), b[at:]...)
}

// drop takes out the byte at off+at (nothing when off < 0).
func drop(b []byte, off, at int) []byte {
	if off < 0 {
		return b
	}
	return append(append([]byte{}, b[:at+off]...), b[at+off+1:]...)
}

// Whatever the bytes of a container, the range scan ends it where the
// byte walk does, with the same bytes, error and reads.
func FuzzRangeScan(f *testing.F) {
	for _, doc := range hostileValues()[:40] {
		f.Add(doc, 64)
	}
	f.Add(`{"a": "x\"y\\", "b": [1, 2]}`, 100)
	f.Fuzz(func(t *testing.T, doc string, size int) {
		if size < 1 || size > 1024 || len(doc) > 4096 {
			return
		}
		checkRangeScan(t, doc, size)
		// a container of the doc repeated, for blocks to go through
		long := "[" + strings.Repeat(doc+",", 1+200/(len(doc)+1))
		checkRangeScan(t, long, size)
		checkRangeScan(t, long+"]", size)
	})
}
