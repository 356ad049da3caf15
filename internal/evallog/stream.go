package evallog

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unsafe"
)

// A sample of hundreds of megabytes is not read into memory: DecodeRef
// decodes it from the inflating stream of its member (or its range of a
// .json log), keeping only what the tables read: the fields of Sample, the
// events of the kinds kept (and of those only the fields of Event), the
// message pool's role, content and tool calls, and the attachments a kept
// text refers to, copied into a document the walk (walk.go) then decodes,
// as it decodes every sample. Everything
// else (tool events, store, message history, provider calls, attachments
// nothing kept refers to) is skipped as it streams past, without being
// copied. A text longer than bigText at a place the tables read as text
// (message content, completion, reasoning) is decoded once into a string of
// its own, equal texts sharing one string (a reply is typically in the
// message, the outputs and an attachment), and stands in the decoded sample
// as a ref to it. inspect_ai writes the attachments after the events; a ref
// that only a field after the attachments holds (no writer does this) is
// resolved by reading the member a second time.
//
// Whatever the stream walk does not take apart (a 2024 transcript, invalid
// JSON, a damaged member) is read whole and decoded by Decode, for the same
// result or the same error.

// bigText is the raw length from which a text is decoded into a string of
// its own instead of being copied into the document the decoder reads;
// textChunk is how many raw bytes of a big text are decoded at a time.
var bigText, textChunk = 256 << 10, 1 << 20

// SetStreamSizes sets the raw size from which DecodeRef streams a sample,
// the length from which a text is decoded on its own and the chunk it is
// decoded by, and returns what restores them: tests take small ones so
// that every path of the stream decode runs on small fixtures.
func SetStreamSizes(from, text, chunk int) (restore func()) {
	f, b, c := streamFrom, bigText, textChunk
	streamFrom, bigText, textChunk = from, text, chunk
	return func() { streamFrom, bigText, textChunk = f, b, c }
}

// bigRef prefixes the hash of a big text in the decoded sample: a NUL no
// attachment hash holds, so it cannot be an attachment's.
const bigRef = "\x00text"

// ErrNotStreamed is what DecodeStream returns for a sample that the walk
// does not take apart; DecodeRef then reads it whole.
var ErrNotStreamed = errors.New("sample not streamed")

var errFallback = ErrNotStreamed

// DecodeRef decodes the sample ref names into d. A sample smaller than
// streamFrom is read into buf (which is returned, maybe grown, for reuse) and
// decoded by Decode; a larger one is decoded from the stream of its member.
// As with Decode, d refers into the returned buffer until Release.
func (d *DecodedSample) DecodeRef(ref SampleRef, buf []byte, legacyScoreName string) ([]byte, error) {
	walked := ref.RawSize() >= int64(streamFrom)
	if walked {
		if err := d.DecodeStream(ref, legacyScoreName); err == nil {
			return buf, nil
		}
	}
	buf, err := ref.AppendBytes(buf[:0])
	if err != nil {
		return buf, err
	}
	return buf, d.Decode(buf, legacyScoreName)
}

// streamFrom is the raw size from which DecodeRef streams a sample; tests
// set it to 0.
var streamFrom = 8 << 20

// streamReadMax, when set (by the fuzz target), cuts every read of a
// sample's stream to that many bytes, so that the walk's refills land
// everywhere in a small sample.
var streamReadMax int

type shortReader struct {
	r io.Reader
	n int
}

func (s shortReader) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), s.n)]) }

// openStream returns the raw JSON of the sample as a stream, with the
// checks appendMember makes: the declared sizes and ratio before anything is
// read, the size and CRC at the end of the stream.
func (r SampleRef) openStream() (io.Reader, func(), error) {
	rd, done, err := r.openMemberStream()
	if err == nil && streamReadMax > 0 {
		rd = shortReader{rd, streamReadMax}
	}
	return rd, done, err
}

// opener starts a walk over the raw JSON of one sample (twice when a ref
// follows the attachments: see resolveLate), reading into buf when it reads.
type opener func(buf []byte) (scanner, func(), error)

// memberOpener reads the sample's member (or range of a .json log).
func (r SampleRef) memberOpener(buf []byte) (scanner, func(), error) {
	rd, done, err := r.openStream()
	if buf == nil {
		buf = make([]byte, 0, 1<<20)
	}
	return scanner{r: rd, buf: buf[:0]}, done, err
}

// heldOpener walks a sample held in memory where it lies: the whole of it
// is the scanner's buffer, at its end, so nothing is read or copied (and,
// its capacity cut, nothing written into raw).
func heldOpener(raw []byte) opener {
	return func([]byte) (scanner, func(), error) {
		return scanner{buf: raw[:len(raw):len(raw)], eof: true}, func() {}, nil
	}
}

func (r SampleRef) openMemberStream() (io.Reader, func(), error) {
	if r.zf == nil {
		if r.length > r.log.maxMember {
			return nil, nil, fmt.Errorf("sample of %d bytes is larger than the cap of %d", r.length, r.log.maxMember)
		}
		return io.NewSectionReader(r.log.file, r.offset, r.length), func() {}, nil
	}
	zf := r.zf
	inflate, err := checkDeclared(zf, r.log.maxMember, r.log.Size)
	if err != nil {
		return nil, nil, err
	}
	raw, err := zf.OpenRaw()
	if err != nil {
		return nil, nil, err
	}
	in := bufio.NewReaderSize(raw, 256<<10)
	rc := io.NopCloser(in)
	if inflate != nil {
		rc = inflate(in)
	}
	m := &checkedMember{r: rc, size: zf.UncompressedSize64, want: zf.CRC32, crc: crc32.NewIEEE()}
	return m, func() { rc.Close() }, nil
}

// checkedMember fails a member that inflates to more or fewer bytes than it
// declares, or to bytes of another CRC.
type checkedMember struct {
	r       io.Reader
	n, size uint64
	want    uint32
	crc     hash.Hash32
	err     error
}

func (m *checkedMember) Read(p []byte) (int, error) {
	if m.err != nil {
		return 0, m.err
	}
	n, err := m.r.Read(p)
	m.n += uint64(n)
	m.crc.Write(p[:n])
	switch {
	case m.n > m.size:
		m.err = zip.ErrFormat
	case err == io.EOF && m.n != m.size:
		m.err = zip.ErrFormat
	case err == io.EOF && m.want != 0 && m.crc.Sum32() != m.want:
		m.err = zip.ErrChecksum
	case err != nil:
		m.err = err
	}
	if m.err != nil && m.err != io.EOF {
		return 0, m.err
	}
	return n, err
}

// streamWalk is the state of one walk over a sample's JSON.
type streamWalk struct {
	s     scanner
	depth int
	texts textTable
	// wanted lists the attachment hashes the kept texts refer to, in the
	// order found.
	wanted []string
	order  map[string]bool
	// att holds the attachments resolved: the wanted ones, and small ones
	// (spare, up to spareBudget bytes) that a ref found after the
	// attachments may still want.
	att, spare map[string]string
	spareBytes int
	attSeen    int // "attachments" members (the last one counts)
	attWanted  int // len(wanted) when the last one was read
	// pools
	hasEvData      bool
	evMsgs, v3Msgs [][]byte
	arena          []byte
	// rawCap, when set, makes str stop copying a string past that many
	// bytes (and drop what it copied), setting capped.
	rawCap int
	capped bool
	// tee, when set, receives every byte consumed from teeFrom on: a raw
	// value is copied as it is, spaces and all, while the walk checks it.
	tee     *[]byte
	teeFrom int
	// scratch
	key, lit, ebuf []byte
}

// spareBudget bounds the small attachments kept in case a ref after them
// wants one; spareMax is the largest kept.
const (
	spareBudget = 32 << 20
	spareMax    = 16 << 10
)

// mode says how a value is copied.
type mode uint8

const (
	mRaw         mode = iota // verbatim
	mOutput                  // a ModelOutput
	mChoice                  // a Choice, or a list of them
	mMessage                 // a ChatMessage: every field, the content as text
	mPoolMessage             // a ChatMessage of the pool: role, content, tool calls
	mMessages                // a list of mMessage
	mContents                // message content: a string or a list of items
	mContent                 // a content item
	mText                    // a string the tables read as text (Resolve)
	mTools                   // a list only counted
)

// eventFields are the keys of Event and how the stream walk copies their
// values, read from Event's json tags (and its stream tags, which name the
// fields not copied verbatim), so that a field added to Event is kept on the
// stream path too.
var eventFields = structFields(reflect.TypeFor[Event]())

// streamModes are the modes a stream tag names.
var streamModes = map[string]mode{"messages": mMessages, "tools": mTools, "output": mOutput}

// structFields lists the json keys of struct t with the mode of each (mRaw
// unless its stream tag names another).
func structFields(t reflect.Type) []streamField {
	var fields []streamField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue // the decoder's own (no member of the log)
		}
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if key == "" || key == "-" {
			panic("evallog: " + t.Name() + "." + f.Name + " has no json key")
		}
		m := mRaw
		if name := f.Tag.Get("stream"); name != "" {
			var ok bool
			if m, ok = streamModes[name]; !ok {
				panic("evallog: " + t.Name() + "." + f.Name + ": unknown stream tag " + name)
			}
		}
		fields = append(fields, streamField{key, m})
	}
	return fields
}

// streamField is a member key of a kept object and how its value is copied.
type streamField struct {
	key  string
	mode mode
}

// fieldMode is the mode of the member key of an object of mode m, and
// whether it is kept.
func fieldMode(m mode, key []byte) (mode, bool) {
	switch m {
	case mOutput:
		switch {
		case keyIs(key, "completion"):
			return mText, true
		case keyIs(key, "choices"):
			return mChoice, true
		}
	case mChoice:
		if keyIs(key, "message") {
			return mMessage, true
		}
	case mMessage, mPoolMessage:
		switch {
		case keyIs(key, "content"):
			return mContents, true
		case m == mPoolMessage:
			return mRaw, keyIs(key, "role") || keyIs(key, "tool_calls")
		}
	case mContent:
		if keyIs(key, "text") || keyIs(key, "reasoning") || keyIs(key, "summary") {
			return mText, true
		}
	}
	return mRaw, true
}

// elemMode is the mode of the elements of a list of mode m.
func elemMode(m mode) mode {
	switch m {
	case mChoice:
		return mChoice
	case mMessages:
		return mMessage
	case mContents:
		return mContent
	}
	return mRaw
}

// DecodeStream decodes the sample ref names into d from the stream of its
// member, whatever its size. Any error (ErrNotStreamed for a sample the walk
// does not take apart) leaves d unusable; DecodeRef then decodes the sample
// whole, which gives the error a user sees.
func (d *DecodedSample) DecodeStream(ref SampleRef, legacyScoreName string) error {
	return d.decodeStream(ref.memberOpener, legacyScoreName)
}

// decodeStream is DecodeStream of the sample open opens.
func (d *DecodedSample) decodeStream(open opener, legacyScoreName string) error {
	sc, done, err := open(nil)
	if err != nil {
		return err
	}
	defer done()
	d.reset()
	w := &streamWalk{order: map[string]bool{}, s: sc}
	slim, err := w.sample()
	if err != nil {
		return err
	}
	if w.attSeen > 0 && len(w.wanted) > w.attWanted {
		// Refs found after the attachments, to ones not kept as spare.
		var late []string
		for _, h := range w.wanted[w.attWanted:] {
			if v, ok := w.spare[h]; ok {
				w.att[h] = v
			} else if _, ok := w.att[h]; !ok {
				late = append(late, h)
			}
		}
		if len(late) > 0 {
			if err := w.resolveLate(open, late); err != nil {
				return err
			}
		}
	}
	if err := d.walkDocument(slim); err != nil {
		return err
	}
	d.resolved = make(map[string]string, len(w.texts.strs)+len(w.att))
	for i, s := range w.texts.strs {
		d.resolved[bigRef+strconv.Itoa(i)] = s
	}
	for _, h := range w.wanted {
		if v, ok := w.att[h]; ok {
			d.resolved[h] = v
		}
	}
	if w.hasEvData {
		d.EventsData = &Pools{Messages: rawMessages(w.evMsgs)}
	}
	d.MessagePool = rawMessages(w.v3Msgs)
	return d.finish(legacyScoreName)
}

// sample walks the top level of the sample and returns the object of the
// kept fields.
func (w *streamWalk) sample() ([]byte, error) {
	slim := append(make([]byte, 0, 64<<10), '{')
	if err := w.open('{'); err != nil {
		return nil, err
	}
	err := w.members(func(key []byte) error {
		switch {
		case keyIs(key, "attachments"):
			return w.attachments(nil)
		case keyIs(key, "events_data"):
			return w.eventsData()
		case keyIs(key, "message_pool"):
			var err error
			w.v3Msgs, err = w.pool()
			return err
		case keyIs(key, "transcript"):
			return errFallback
		}
		switch keptField(&slim, key) {
		case "":
			first, err := w.peek()
			if err != nil {
				return err
			}
			kindField(&slim, key, first)
			return w.value(nil, mRaw)
		case "output":
			return w.value(&slim, mOutput)
		case "events":
			return w.events(&slim)
		}
		return w.value(&slim, mRaw)
	})
	if err != nil {
		return nil, err
	}
	// Nothing but space may follow, up to the end of the stream (where the
	// member's size and CRC are checked).
	for {
		for ; w.s.pos < len(w.s.buf); w.s.pos++ {
			if !isSpace(w.s.buf[w.s.pos]) {
				return nil, errFallback
			}
		}
		if err := w.fill(); err != nil {
			if err == errUnexpectedEOF && w.s.eof {
				return append(slim, '}'), nil
			}
			return nil, err
		}
	}
}

// fill reads more of the stream, first copying the bytes consumed of a raw
// value being copied verbatim (tee) out of the buffer the refill reuses.
func (w *streamWalk) fill() error {
	if w.tee != nil {
		*w.tee = append(*w.tee, w.s.buf[w.teeFrom:w.s.pos]...)
		w.teeFrom = 0
	}
	return w.s.fill()
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// peek returns the next byte that is not space, without consuming it.
func (w *streamWalk) peek() (byte, error) {
	s := &w.s
	for {
		for ; s.pos < len(s.buf); s.pos++ {
			if c := s.buf[s.pos]; !isSpace(c) {
				return c, nil
			}
		}
		if err := w.fill(); err != nil {
			return 0, err
		}
	}
}

// open consumes the byte c, which must come next.
func (w *streamWalk) open(c byte) error {
	got, err := w.peek()
	if err != nil {
		return err
	}
	if got != c {
		return errFallback
	}
	w.s.pos++
	return nil
}

// members walks the members of the object whose '{' was consumed: fn is
// given each raw key (valid until fn returns) and consumes its value.
func (w *streamWalk) members(fn func(key []byte) error) error {
	return w.items('}', func() error {
		c, err := w.peek()
		if err != nil {
			return err
		}
		if c != '"' {
			return errFallback
		}
		w.key = w.key[:0]
		if _, err := w.str(&w.key, false); err != nil {
			return err
		}
		if len(w.key) > 1<<20 {
			return errFallback
		}
		if err := w.open(':'); err != nil {
			return err
		}
		// fn uses the key before it walks the value, whose nested keys
		// reuse w.key.
		return fn(w.key)
	})
}

// elements walks the elements of the list whose '[' was consumed; fn
// consumes each.
func (w *streamWalk) elements(fn func() error) error {
	return w.items(']', fn)
}

// items walks the members or elements of the object or list whose opening
// byte was consumed, up to its closing byte closer: item consumes each.
func (w *streamWalk) items(closer byte, item func() error) error {
	c, err := w.peek()
	if err != nil {
		return err
	}
	if c == closer {
		w.s.pos++
		return nil
	}
	for {
		if err := item(); err != nil {
			return err
		}
		if c, err = w.peek(); err != nil {
			return err
		}
		w.s.pos++
		switch c {
		case ',':
		case closer:
			return nil
		default:
			return errFallback
		}
	}
}

func (w *streamWalk) enter() error {
	if w.depth++; w.depth > maxFastDepth {
		return errFallback
	}
	return nil
}

// value consumes one value, appending it to *dst (nil: skipping it) as
// mode m says.
func (w *streamWalk) value(dst *[]byte, m mode) error {
	c, err := w.peek()
	if err != nil {
		return err
	}
	if dst != nil && m == mRaw && w.tee == nil {
		// Raw JSON is kept as the log has it: walked (checked) without a
		// copy, and teed.
		w.tee, w.teeFrom = dst, w.s.pos
		err := w.value(nil, mRaw)
		if err == nil {
			*dst = append(*dst, w.s.buf[w.teeFrom:w.s.pos]...)
		}
		w.tee = nil
		return err
	}
	switch c {
	case '"':
		if dst != nil && (m == mText || m == mContents) {
			return w.text(dst)
		}
		_, err := w.str(dst, false)
		return err
	case '{':
		if err := w.enter(); err != nil {
			return err
		}
		defer func() { w.depth-- }()
		w.s.pos++
		if dst == nil {
			return w.members(func([]byte) error { return w.value(nil, mRaw) })
		}
		*dst = append(*dst, '{')
		first := true
		err := w.members(func(key []byte) error {
			fm, keep := fieldMode(m, key)
			if !keep {
				return w.value(nil, mRaw)
			}
			if !first {
				*dst = append(*dst, ',')
			}
			first = false
			*dst = append(append(*dst, key...), ':')
			return w.value(dst, fm)
		})
		*dst = append(*dst, '}')
		return err
	case '[':
		if err := w.enter(); err != nil {
			return err
		}
		defer func() { w.depth-- }()
		w.s.pos++
		if dst == nil {
			return w.elements(func() error { return w.value(nil, mRaw) })
		}
		*dst = append(*dst, '[')
		em := elemMode(m)
		first := true
		err := w.elements(func() error {
			if !first {
				*dst = append(*dst, ',')
			}
			first = false
			if m == mTools {
				// Only counted: an object is kept as {}.
				if c, err := w.peek(); err == nil && c == '{' {
					*dst = append(*dst, '{', '}')
					return w.value(nil, mRaw)
				}
			}
			return w.value(dst, em)
		})
		*dst = append(*dst, ']')
		return err
	}
	return w.scalar(dst)
}

// scalar consumes a number or literal, checked as skipValue checks it.
func (w *streamWalk) scalar(dst *[]byte) error {
	s := &w.s
	w.lit = w.lit[:0]
	for {
		for s.pos < len(s.buf) && isScalarByte(s.buf[s.pos]) {
			w.lit = append(w.lit, s.buf[s.pos])
			s.pos++
			if len(w.lit) > 1<<20 {
				return errFallback
			}
		}
		if s.pos < len(s.buf) {
			break
		}
		if err := w.fill(); err != nil {
			if err == errUnexpectedEOF && s.eof {
				break
			}
			return err
		}
	}
	if end, ok := skipValue(w.lit, 0); !ok || end != len(w.lit) {
		return errFallback
	}
	if dst != nil {
		*dst = append(*dst, w.lit...)
	}
	return nil
}

// null consumes a null; anything else is left to the whole decode.
func (w *streamWalk) null() error {
	if err := w.scalar(nil); err != nil {
		return err
	}
	if string(w.lit) != "null" {
		return errFallback
	}
	return nil
}

// str consumes a string, appending its raw bytes (quotes included) to *dst
// unless dst is nil. With big set, a string of more than bigText raw bytes
// goes to the text table instead: str returns its index there (and *dst is
// as it was), or -1.
func (w *streamWalk) str(dst *[]byte, big bool) (int, error) {
	s := &w.s
	start := 0
	if dst != nil {
		start = len(*dst)
	}
	inBig := false
	w.capped = false
	emit := func(b []byte) error {
		switch {
		case inBig:
			return w.texts.add(b)
		case dst != nil && w.rawCap > 0 && len(*dst)-start+len(b) > w.rawCap:
			*dst, dst, w.capped = (*dst)[:start], nil, true
		case dst != nil:
			*dst = append(*dst, b...)
			if big && len(*dst)-start > bigText {
				inBig = true
				w.texts.begin()
				err := w.texts.add((*dst)[start:])
				*dst = (*dst)[:start]
				return err
			}
		}
		return nil
	}
	from, i := s.pos, s.pos+1
	for {
		for {
			j := nextQuoteOrBackslash(s.buf, i)
			if j < 0 {
				i = len(s.buf)
				break
			}
			if s.buf[j] == '"' {
				s.pos = j + 1
				if hasControl(s.buf[from:j]) {
					return -1, errFallback // invalid JSON, which the decoder reports
				}
				if err := emit(s.buf[from:j]); err != nil {
					return -1, err
				}
				if inBig {
					return w.texts.end()
				}
				if dst != nil {
					*dst = append(*dst, '"')
				}
				return -1, nil
			}
			n := escapeLen(s.buf[j:])
			if n < 0 {
				return -1, errFallback // an invalid escape, which the decoder reports
			}
			if n == 0 {
				i = j // the escape is read again after the refill
				break
			}
			i = j + n
		}
		if hasControl(s.buf[from:i]) {
			return -1, errFallback
		}
		if err := emit(s.buf[from:i]); err != nil {
			return -1, err
		}
		s.pos = i
		if err := w.fill(); err != nil {
			return -1, err
		}
		from, i = s.pos, s.pos
	}
}

// escapeLen is the length of the escape at b[0] (a backslash): 2, or 6 for
// \uXXXX; 0 when b ends before the escape does; -1 when it is no JSON
// escape. The decoder refuses a string with an invalid escape, so the walk
// must not take one in a value it skips.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, c := range b[2:6] {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return -1
			}
		}
		return 6
	}
	return -1
}

// hasControl reports whether b holds a byte below 0x20, which no JSON
// string may hold raw (the decoder refuses it), 8 bytes at a time.
func hasControl(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if (x-0x20*ones)&^x&highs != 0 {
			return true
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return true
		}
	}
	return false
}

// text consumes a string the tables read as text: a big one is replaced by
// a ref to its entry in the text table, and a ref to an attachment is
// noted as wanted.
func (w *streamWalk) text(dst *[]byte) error {
	start := len(*dst)
	idx, err := w.str(dst, true)
	if err != nil {
		return err
	}
	if idx >= 0 {
		if t := w.texts.strs[idx]; strings.HasPrefix(t, "attachment://") || strings.HasPrefix(t, "tc://") {
			return errFallback // a ref of 256 KiB: left to the whole decode
		}
		*dst = append(append(*dst, `"attachment://\u0000text`...), strconv.Itoa(idx)...)
		*dst = append(*dst, '"')
		return nil
	}
	raw := (*dst)[start:]
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		s, err := DecodeString(raw)
		if err != nil {
			return nil // the decoder reports it
		}
		body = []byte(s)
	}
	for _, p := range []string{"attachment://", "tc://"} {
		if bytes.HasPrefix(body, []byte(p)) {
			h := string(body[len(p):])
			if strings.HasPrefix(h, bigRef) {
				// A text spelling a big text's ref (the log cannot hold
				// an attachment of that hash): left to the whole decode,
				// which keeps it as written.
				return errFallback
			}
			if !w.order[h] {
				w.order[h] = true
				w.wanted = append(w.wanted, h)
			}
		}
	}
	return nil
}

// events consumes the events list, appending the events of the kinds kept,
// each with the fields of Event only.
func (w *streamWalk) events(dst *[]byte) error {
	c, err := w.peek()
	if err != nil {
		return err
	}
	if c != '[' {
		return w.value(dst, mRaw)
	}
	w.s.pos++
	*dst = append(*dst, '[')
	first := true
	err = w.elements(func() error {
		c, err := w.peek()
		if err != nil {
			return err
		}
		if c != '{' {
			if !first {
				*dst = append(*dst, ',')
			}
			first = false
			return w.value(dst, mRaw)
		}
		w.s.pos++
		eb := append(w.ebuf[:0], '{')
		w.ebuf = nil // nested values may not use it
		kind, known, nkinds, firstField := "", false, 0, true
		err = w.members(func(key []byte) error {
			if keyIs(key, "event") {
				if nkinds++; nkinds > 1 {
					return errFallback
				}
			} else if known && !keptEvents[kind] {
				return w.value(nil, mRaw)
			}
			for _, f := range eventFields {
				if !keyIs(key, f.key) {
					continue
				}
				if !firstField {
					eb = append(eb, ',')
				}
				firstField = false
				eb = append(append(eb, key...), ':')
				vs := len(eb)
				if err := w.value(&eb, f.mode); err != nil {
					return err
				}
				if f.key == "event" && firstByte(eb[vs:]) == '"' {
					s, err := DecodeString(eb[vs:])
					kind, known = s, err == nil
				}
				return nil
			}
			return w.value(nil, mRaw)
		})
		w.ebuf = eb
		if err != nil {
			return err
		}
		if known && !inspectEventKinds[kind] {
			return errFallback // the whole decode names the kind
		}
		if known && !keptEvents[kind] {
			return nil
		}
		if !first {
			*dst = append(*dst, ',')
		}
		first = false
		*dst = append(append(*dst, eb...), '}')
		return nil
	})
	*dst = append(*dst, ']')
	return err
}

// pool consumes a message pool: null, or a list of messages.
func (w *streamWalk) pool() ([][]byte, error) {
	c, err := w.peek()
	if err != nil {
		return nil, err
	}
	if c != '[' {
		return nil, w.null()
	}
	w.s.pos++
	var ends []int
	arena := w.arena[:0]
	base := len(arena)
	err = w.elements(func() error {
		if err := w.value(&arena, mPoolMessage); err != nil {
			return err
		}
		ends = append(ends, len(arena))
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A pool of its own: the arena of the previous one may be referred to.
	w.arena = nil
	out := make([][]byte, len(ends))
	for i, e := range ends {
		out[i] = arena[base:e:e]
		base = e
	}
	return out, nil
}

// eventsData consumes events_data: its message pool is kept.
func (w *streamWalk) eventsData() error {
	c, err := w.peek()
	if err != nil {
		return err
	}
	w.hasEvData, w.evMsgs = false, nil
	if c != '{' {
		return w.null()
	}
	w.s.pos++
	w.hasEvData = true
	return w.members(func(key []byte) error {
		if !keyIs(key, "messages") {
			return w.value(nil, mRaw)
		}
		var err error
		w.evMsgs, err = w.pool()
		return err
	})
}

// attachments consumes the attachments object. It keeps the values of the
// hashes wanted so far, and small others as spare; with only set (the
// second read), just those.
func (w *streamWalk) attachments(only map[string]bool) error {
	c, err := w.peek()
	if err != nil {
		return err
	}
	if only == nil {
		w.attSeen++
		w.attWanted = len(w.wanted)
		w.att, w.spare, w.spareBytes = map[string]string{}, map[string]string{}, 0
	}
	if c != '{' {
		return errFallback // a dict[str, str], not null: the whole decode's refusal
	}
	w.s.pos++
	var raw []byte
	return w.members(func(key []byte) error {
		h, err := DecodeString(key)
		if err != nil {
			return errFallback
		}
		want := w.order[h]
		if only != nil {
			if want = only[h]; !want {
				return w.value(nil, mRaw)
			}
		}
		delete(w.att, h) // the last of a repeated key counts
		delete(w.spare, h)
		c, err := w.peek()
		if err != nil {
			return err
		}
		if c != '"' { // not a str: the whole decode's refusal (the second read, only set, skipped those it does not list above)
			return errFallback
		}
		raw = raw[:0]
		if !want {
			if w.spareBytes >= spareBudget {
				return w.value(nil, mRaw)
			}
			w.rawCap = min(spareMax, spareBudget-w.spareBytes)
		}
		idx, err := w.str(&raw, want)
		w.rawCap = 0
		if err != nil || w.capped {
			return err
		}
		if idx >= 0 {
			w.att[h] = w.texts.strs[idx]
			return nil
		}
		v, err := DecodeString(raw)
		if err != nil {
			return errFallback
		}
		if want {
			w.att[h] = v
		} else {
			w.spare[h] = v
			w.spareBytes += len(raw)
		}
		return nil
	})
}

// resolveLate reads the sample's last attachments again for the refs found
// after them.
func (w *streamWalk) resolveLate(open opener, late []string) error {
	sc, done, err := open(w.s.buf)
	if err != nil {
		return err
	}
	defer done()
	only := map[string]bool{}
	for _, h := range late {
		only[h] = true
	}
	w.s = sc
	if err := w.open('{'); err != nil {
		return err
	}
	seen := 0
	errDone := errors.New("done")
	err = w.members(func(key []byte) error {
		if !keyIs(key, "attachments") {
			return w.value(nil, mRaw)
		}
		if seen++; seen < w.attSeen {
			return w.value(nil, mRaw)
		}
		if err := w.attachments(only); err != nil {
			return err
		}
		return errDone
	})
	if err == errDone {
		return nil
	}
	if err == nil {
		err = errFallback
	}
	return err
}

// textTable holds the big texts of a sample, each decoded once.
type textTable struct {
	strs []string
	raw  []byte // the raw bytes of the text being read, from its quote
	out  []byte // a chunk decoded
	b    textBuilder
}

// begin starts a big text.
func (t *textTable) begin() {
	t.raw = t.raw[:0]
	t.b.parts, t.b.n = nil, 0
	t.b.cands = t.b.cands[:0]
	for i := range t.strs {
		t.b.cands = append(t.b.cands, i)
	}
}

// add takes more raw bytes of the big text (the first call starts with its
// opening quote), decoding them a chunk at a time.
func (t *textTable) add(b []byte) error {
	t.raw = append(t.raw, b...)
	if len(t.raw) < textChunk {
		return nil
	}
	k := safeCut(t.raw)
	if k <= 1 {
		return nil // no place to cut yet: read on
	}
	if err := t.decode(k); err != nil {
		return err
	}
	t.raw = t.raw[:1+copy(t.raw[1:], t.raw[k:])]
	return nil
}

// end decodes the rest of the big text and returns its index.
func (t *textTable) end() (int, error) {
	if err := t.decode(len(t.raw)); err != nil {
		return -1, err
	}
	return t.b.end(&t.strs), nil
}

// decode decodes t.raw[:k] (from the opening quote) and feeds it to the
// builder.
func (t *textTable) decode(k int) error {
	b, ok := appendUnquoted(t.out[:0], t.raw[1:k]) // as DecodeString decodes it whole
	if !ok {
		return errFallback
	}
	t.out = b
	t.b.feed(b, t.strs)
	return nil
}

// safeCut returns an index of raw (a string's raw bytes from its quote)
// before which the string can be cut without splitting an escape or a UTF-8
// sequence: a byte that starts a character and is neither escaped, nor a
// backslash, nor a character of a \u escape. 0 when there is none.
func safeCut(raw []byte) int {
	for k := len(raw) - 1; k > 1 && k > len(raw)-4096; k-- {
		c := raw[k]
		if raw[k-1] == '\\' {
			continue
		}
		switch {
		case c >= 0xC0:
			return k
		case c >= 0x80, c == '\\', c == 'u', c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
			continue
		}
		return k
	}
	return 0
}

// textBuilder assembles a big text from its decoded chunks; while the text
// equals the start of one already in the table it keeps nothing, and a text
// equal to one there is that one.
type textBuilder struct {
	cands []int // texts of the table equal to the text so far
	parts []string
	n     int
}

func (b *textBuilder) feed(s []byte, strs []string) {
	if b.parts == nil && len(b.cands) > 0 {
		prev := b.cands[0]
		keep := b.cands[:0]
		for _, c := range b.cands {
			if t := strs[c]; len(t) >= b.n+len(s) && t[b.n:b.n+len(s)] == string(s) {
				keep = append(keep, c)
			}
		}
		b.cands = keep
		if len(keep) > 0 {
			b.n += len(s)
			return
		}
		b.parts = append(b.parts, strs[prev][:b.n])
	} else if b.parts == nil {
		b.parts = []string{}
	}
	b.parts = append(b.parts, string(s))
	b.n += len(s)
}

func (b *textBuilder) end(strs *[]string) int {
	if b.parts == nil {
		for _, c := range b.cands {
			if len((*strs)[c]) == b.n {
				return c
			}
		}
		if len(b.cands) == 0 {
			b.parts = []string{""}
		} else {
			b.parts = []string{(*strs)[b.cands[0]][:b.n]}
		}
	}
	var s string
	switch len(b.parts) {
	case 1:
		s = b.parts[0]
	default:
		buf := make([]byte, 0, b.n)
		for i, p := range b.parts {
			buf = append(buf, p...)
			b.parts[i] = ""
		}
		s = unsafe.String(unsafe.SliceData(buf), len(buf))
	}
	b.parts = nil
	*strs = append(*strs, s)
	return len(*strs) - 1
}
