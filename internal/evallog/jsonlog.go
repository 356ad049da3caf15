package evallog

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"
)

// openJSON scans a .json log once: the top-level values other than "samples"
// and "reductions" are kept to build the header, and each element of
// "samples" is recorded as a byte range, read again later by whichever worker
// decodes it. Nothing larger than one header value is held in memory (§1.5).
func (l *Log) openJSON() error {
	// The file is hashed as it is scanned, so it is read once.
	file, h := io.NewSectionReader(l.file, 0, l.Size), sha256.New()
	// The buffer is given back once the scan is done: nothing kept refers
	// to it (header values and keys are copied out of it).
	bp := readBuffers.Get().(*[]byte)
	defer readBuffers.Put(bp)
	s := &scanner{r: io.TeeReader(file, h), buf: (*bp)[:0], limit: l.maxMember}
	if err := l.scanJSON(s); err != nil {
		return err
	}
	// Only space may follow the log's object: pydantic's from_json refuses
	// anything else ("trailing characters"), NUL bytes included.
	rest := &onlySpace{}
	s.pos++ // the object's '}', which scanJSON peeked at
	if _, err := rest.Write(s.buf[s.pos:]); err != nil {
		return fmt.Errorf("at byte %d, after the log's object: %w", s.offset(), err)
	}
	if _, err := io.CopyBuffer(io.MultiWriter(h, rest), file, s.buf[:cap(s.buf)]); err != nil { // what follows the log's object
		return fmt.Errorf("after the log's object: %w", err)
	}
	l.SHA256 = hex.EncodeToString(h.Sum(nil))
	return nil
}

func (l *Log) scanJSON(s *scanner) error {
	var header bytes.Buffer
	header.WriteByte('{')
	if err := s.expect('{'); err != nil {
		return err
	}
	first := true
	for {
		c, err := s.peekNonSpace()
		if err != nil {
			return err
		}
		if c == '}' {
			break
		}
		if !first {
			if err := s.expect(','); err != nil {
				return err
			}
		}
		first = false
		key, err := s.readKey()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		switch key {
		case "samples":
			if err := s.sampleRanges(l); err != nil {
				return fmt.Errorf("samples: %w", err)
			}
		case "reductions":
			// no table reads them, but inspect_ai refuses a log whose
			// reductions are not valid JSON or not a list or null
			// (reductions.go): the value is checked, and a value of its
			// kind stands in the header for the header's kind checks
			raw, err := s.value([]byte{})
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			if err := syntaxError(raw); err != nil {
				return fmt.Errorf("%s, the value at byte %d: %w", key, s.offset()-int64(len(raw)), err)
			}
			if header.Len() > 1 {
				header.WriteByte(',')
			}
			header.WriteString(`"reductions":`)
			header.WriteString(kindPlaceholder(firstByte(raw)))
		default:
			raw, err := s.value([]byte{})
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			if header.Len() > 1 {
				header.WriteByte(',')
			}
			header.WriteString(strconv.Quote(key))
			header.WriteByte(':')
			header.Write(raw)
			if int64(header.Len()) > l.maxMember {
				return fmt.Errorf("header: more than the cap of %d bytes (ingest --max-member-mb)", l.maxMember)
			}
		}
	}
	header.WriteByte('}')
	doc, _ := lastKeyWins(header.Bytes())
	if _, err := unmarshal(doc, &l.Header); err != nil {
		return fmt.Errorf("header: %w", describeJSONError(doc, err))
	}
	if err := checkHeader(doc, &l.Header, false); err != nil {
		return fmt.Errorf("header: %w", err)
	}
	l.HeaderSource = HeaderFromJSON
	return nil
}

func (s *scanner) sampleRanges(l *Log) error {
	c, err := s.peekNonSpace()
	if err != nil {
		return err
	}
	if c == 'n' { // null
		l.Samples = l.Samples[:0]
		_, err := s.value(nil)
		return err
	}
	if err := s.expect('['); err != nil {
		return err
	}
	// A repeated "samples" key replaces the earlier list, as Python's
	// decoders (json.loads, pydantic) keep the last value of a key.
	l.Samples = l.Samples[:0]
	for i := 0; ; i++ {
		c, err := s.peekNonSpace()
		if err != nil {
			return err
		}
		if c == ']' {
			s.pos++
			return nil
		}
		if i > 0 {
			if err := s.expect(','); err != nil {
				return err
			}
			if _, err := s.peekNonSpace(); err != nil {
				return err
			}
		}
		start := s.offset()
		if _, err := s.value(nil); err != nil {
			return fmt.Errorf("sample %d: %w", i, err)
		}
		l.Samples = append(l.Samples, SampleRef{
			Member: fmt.Sprintf("samples[%d]", i),
			offset: start,
			length: s.offset() - start,
			log:    l,
		})
	}
}

// scanner is a minimal streaming JSON tokenizer: enough to walk the top-level
// object of a log and to skip or capture whole values.
type scanner struct {
	r    io.Reader
	buf  []byte
	pos  int
	base int64 // file offset of buf[0]
	eof  bool
	// limit bounds a captured value (0: unbounded); skipped values cost
	// nothing and have none.
	limit int64
}

var errUnexpectedEOF = errors.New("unexpected end of file (truncated log?)")

func (s *scanner) offset() int64 { return s.base + int64(s.pos) }

// fill reads more input; it keeps unconsumed bytes.
func (s *scanner) fill() error {
	if s.eof {
		return errUnexpectedEOF
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:])
		s.base += int64(s.pos)
		s.buf = s.buf[:n]
		s.pos = 0
	}
	if len(s.buf) == cap(s.buf) {
		s.buf = append(s.buf, make([]byte, cap(s.buf))...)[:len(s.buf)]
	}
	n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
	s.buf = s.buf[:len(s.buf)+n]
	if err == io.EOF {
		s.eof = true
		if n == 0 {
			return errUnexpectedEOF
		}
		return nil
	}
	return err
}

func (s *scanner) peekNonSpace() (byte, error) {
	for {
		for s.pos < len(s.buf) {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\r', '\n':
				s.pos++
			case 0xEF, 0xBB, 0xBF:
				if s.base == 0 && s.pos < 3 { // byte order mark
					s.pos++
					continue
				}
				return c, nil
			default:
				return c, nil
			}
		}
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
}

func (s *scanner) expect(want byte) error {
	c, err := s.peekNonSpace()
	if err != nil {
		return err
	}
	if c != want {
		return fmt.Errorf("invalid JSON at offset %d: expected %q, found %q", s.offset(), want, c)
	}
	s.pos++
	return nil
}

func (s *scanner) readKey() (string, error) {
	c, err := s.peekNonSpace()
	if err != nil {
		return "", err
	}
	if c != '"' {
		return "", fmt.Errorf("invalid JSON at offset %d: expected a key, found %q", s.offset(), c)
	}
	raw, err := s.value([]byte{})
	if err != nil {
		return "", err
	}
	key, err := DecodeString(raw)
	if err != nil {
		return string(raw[1 : len(raw)-1]), nil
	}
	return key, nil
}

// value consumes one JSON value. When dst is non-nil the raw bytes are
// appended to it and returned; otherwise the value is skipped. The loop works
// on local copies of the buffer and position, which the compiler keeps in
// registers; s is brought up to date before every refill and return. Inside
// a container, the full blocks of 64 bytes left in the buffer go to the
// range scan where the CPU has it (rangescan.go), for the same end.
func (s *scanner) value(dst []byte) ([]byte, error) {
	if _, err := s.peekNonSpace(); err != nil {
		return nil, err
	}
	depth := 0
	inString := false
	escaped := false
	scalar := false
	buf, pos, start := s.buf, s.pos, s.pos
	blocks := simdRanges // rangeBlocks may take the next full blocks
	done := func() ([]byte, error) {
		s.pos = pos
		if dst != nil {
			dst = append(dst, buf[start:pos]...)
		}
		return dst, nil
	}
	for {
		for pos < len(buf) {
			if depth > 0 && blocks && len(buf)-pos >= 64 {
				// Inside a container, the blocks of 64 bytes up to the
				// buffer's last few (rangescan.go).
				st := rangeState{depth: int64(depth)}
				if inString {
					st.inString = ^uint64(0)
				}
				if escaped {
					st.escaped = 1
				}
				n := (len(buf) - pos) / 64
				if end := rangeBlocks(&buf[pos], n, &st); end > 0 {
					pos += end
					return done()
				}
				pos += 64 * int(st.blocks)
				depth, inString, escaped = int(st.depth), st.inString != 0, st.escaped != 0
				// A block the byte walk must take: it takes the rest of
				// the value.
				blocks = int(st.blocks) == n
				continue
			}
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

// nextQuoteOrBackslash is the index of the first '"' or '\\' in b from i on,
// or -1. It tests eight bytes at a time (SWAR) over the first 64 bytes, where
// most strings (keys, short values, the run up to the next escape) end, and
// hands longer runs to the vectorised search.
func nextQuoteOrBackslash(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	const quotes, slashes = 0x22 * ones, 0x5c * ones
	for end := min(len(b), i+64); i+8 <= end; i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, s := x^quotes, x^slashes // a zero byte where x has '"' or '\\'
		if m := ((q-ones)&^q | (s-ones)&^s) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8 // the lowest flagged byte is exact
		}
	}
	if len(b)-i > 8 {
		if k := quoteOrBackslash(b[i:]); k >= 0 {
			return i + k
		}
		return -1
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' {
			return i
		}
	}
	return -1
}

// quoteOrBackslash is the index of the first '"' or '\\' in b, or -1. It
// looks for the backslash first, then for a quote before it, and in windows
// of quoteWindow bytes: a long string with an escape every few hundred bytes
// (a 200 MB reply with line breaks) would otherwise rescan the rest of the
// string, up to its closing quote, at every escape.
func quoteOrBackslash(b []byte) int {
	for off := 0; off < len(b); off += quoteWindow {
		w := b[off:min(len(b), off+quoteWindow)]
		bs := bytes.IndexByte(w, '\\')
		if bs >= 0 {
			w = w[:bs]
		}
		if q := bytes.IndexByte(w, '"'); q >= 0 {
			return off + q
		}
		if bs >= 0 {
			return off + bs
		}
	}
	return -1
}

const quoteWindow = 64 << 10

// onlySpace is a writer that fails on a byte that is not JSON space.
type onlySpace struct{}

func (onlySpace) Write(b []byte) (int, error) {
	for i, c := range b {
		if !isSpace(c) {
			return i, fmt.Errorf("%q where only space may follow the log's object (inspect_ai refuses trailing characters)", c)
		}
	}
	return len(b), nil
}
