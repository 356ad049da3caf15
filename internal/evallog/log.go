// Package evallog reads Inspect AI evaluation logs of every era: .eval zip
// archives (stored, deflate or multi-frame zstd members, ZIP64, duplicate
// member names where the last entry wins, journal-only logs of runs that are
// still going or were killed) and .json documents (streamed, so a large log
// never sits in memory whole). Samples are handed out one at a time as raw
// bytes; DecodeSample turns them into the typed subset the tables need,
// tolerating NaN/Infinity literals, huge integers, nulls and any key order.
//
// The format is specified in ../shared/reference/inspect-log-format.md; the
// section numbers in comments refer to it.
package evallog

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	json "github.com/goccy/go-json"
	kflate "github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"
)

// Format of a log file.
const (
	FormatEval = "eval"
	FormatJSON = "json"
)

// Where a header came from.
const (
	HeaderFromHeader  = "header.json"
	HeaderFromJournal = "_journal/start.json"
	HeaderFromJSON    = "json"
)

// Log is an opened log file: its header and the list of its samples.
type Log struct {
	Path         string
	Format       string
	Size         int64
	SHA256       string
	Header       Header
	HeaderSource string
	// Summaries counts the sample summaries the log holds (summaries.json, or
	// the journal's, de-duplicated by id and epoch); -1 when the format has none.
	Summaries int
	// Samples lists the log's samples in a deterministic order: (epoch, id)
	// like inspect_ai's reader for .eval, file order for .json.
	Samples []SampleRef

	file *os.File
	zr   *zip.Reader
}

// SampleRef names one sample of a log and loads its raw JSON.
type SampleRef struct {
	// Member is the zip member name, or "samples[i]" for .json logs.
	Member string
	// ID and Epoch as the member name gives them (.eval only).
	ID    string
	Epoch int

	zf     *zip.File
	offset int64 // .json: offset of the sample value in the file
	length int64
	log    *Log
}

// Close releases the file.
func (l *Log) Close() error {
	if l.file == nil {
		return nil
	}
	err := l.file.Close()
	l.file = nil
	return err
}

// ErrChunked reports the experimental chunked sample layout.
var ErrChunked = fmt.Errorf("chunked sample layout (samples/<id>_epoch_<n>/sample.json, written by the hidden `inspect log convert-chunked`) is not supported, and inspect_ai's own reader cannot read it either; keep the monolithic .eval it was converted from")

// Open opens a log file, reads its header and lists its samples. Errors name
// the file and, where one is at fault, the member.
func Open(p string) (*Log, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	l := &Log{Path: p, Size: st.Size(), file: f, Summaries: -1}
	var magic [4]byte
	n, _ := f.ReadAt(magic[:], 0)
	switch {
	case n == 4 && string(magic[:]) == "PK\x03\x04", strings.HasSuffix(p, ".eval") && n == 4 && string(magic[:]) == "PK\x05\x06":
		l.Format = FormatEval
		if err = l.hash(); err == nil {
			err = l.openZip()
		}
	case firstNonSpace(f) == '{':
		l.Format = FormatJSON
		err = l.openJSON() // hashes as it scans
	case strings.HasSuffix(p, ".eval"):
		err = fmt.Errorf("not a zip archive (an .eval log is a zip file); the file may be truncated or not a log")
	default:
		err = fmt.Errorf("not an Inspect log: expected a zip archive (.eval) or a JSON object (.json)")
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

func (l *Log) hash() error {
	h := sha256.New()
	if _, err := io.CopyBuffer(h, io.NewSectionReader(l.file, 0, l.Size), make([]byte, 1<<20)); err != nil {
		return err
	}
	l.SHA256 = hex.EncodeToString(h.Sum(nil))
	return nil
}

func firstNonSpace(f *os.File) byte {
	var buf [512]byte
	n, _ := f.ReadAt(buf[:], 0)
	for _, c := range buf[:n] {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case 0xEF, 0xBB, 0xBF: // UTF-8 byte order mark
			continue
		}
		return c
	}
	return 0
}

var (
	sampleMember  = regexp.MustCompile(`^samples/([^/]+)_epoch_(\d+)\.json$`)
	chunkedMember = regexp.MustCompile(`^samples/[^/]+/`)
	journalSumm   = regexp.MustCompile(`^_journal/summaries/(\d+)\.json$`)
)

func (l *Log) openZip() error {
	zr, err := zip.NewReader(l.file, l.Size)
	if err != nil {
		return fmt.Errorf("reading zip central directory: %w", err)
	}
	// Members are inflated by appendMember (stored, deflate, and method 93,
	// zstd, inspect_ai's default since 0.3.206), not by zr's decompressors.
	l.zr = zr

	// The central directory may name a member more than once: the writer
	// appends a re-logged sample or a new header, and every reader takes the
	// last entry (§1.3).
	last := map[string]*zip.File{}
	var order []string
	for _, zf := range zr.File {
		if chunkedMember.MatchString(zf.Name) {
			return fmt.Errorf("%s: %w", zf.Name, ErrChunked)
		}
		if _, seen := last[zf.Name]; !seen {
			order = append(order, zf.Name)
		}
		last[zf.Name] = zf
	}

	if zf := last["header.json"]; zf != nil {
		if err := readMemberInto(zf, &l.Header); err != nil {
			return fmt.Errorf("%s: %w", zf.Name, err)
		}
		l.HeaderSource = HeaderFromHeader
	} else if zf := last["_journal/start.json"]; zf != nil {
		// A running or killed log: synthesise the header like inspect_ai
		// does, with status "started" and no results (§1.2).
		if err := readMemberInto(zf, &l.Header); err != nil {
			return fmt.Errorf("%s: %w", zf.Name, err)
		}
		l.Header.Status = "started"
		l.HeaderSource = HeaderFromJournal
	} else {
		return fmt.Errorf("no header.json and no _journal/start.json: not an Inspect log, or a log whose writer died before its first flush")
	}

	if n, err := countSummaries(last); err != nil {
		return err
	} else {
		l.Summaries = n
	}

	for _, name := range order {
		m := sampleMember.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		epoch, _ := strconv.Atoi(m[2])
		l.Samples = append(l.Samples, SampleRef{Member: name, ID: m[1], Epoch: epoch, zf: last[name], log: l})
	}
	// inspect_ai sorts samples by (epoch, id), integer ids compared as
	// zero-padded strings (§1.4).
	sort.SliceStable(l.Samples, func(i, j int) bool {
		a, b := l.Samples[i], l.Samples[j]
		if a.Epoch != b.Epoch {
			return a.Epoch < b.Epoch
		}
		return idSortKey(a.ID) < idSortKey(b.ID)
	})
	return nil
}

func idSortKey(id string) string {
	if _, err := strconv.ParseUint(id, 10, 64); err == nil && len(id) < 20 {
		return strings.Repeat("0", 20-len(id)) + id
	}
	return id
}

// countSummaries counts summaries.json, or for an unfinished log the journal
// summaries de-duplicated by (id, epoch), last wins (§1.4).
func countSummaries(last map[string]*zip.File) (int, error) {
	type key struct {
		ID    string
		Epoch int
	}
	type summary struct {
		ID    json.RawMessage `json:"id"`
		Epoch int             `json:"epoch"`
	}
	if zf := last["summaries.json"]; zf != nil {
		var s []struct{} // counted only: the decoder skips every field
		if err := readMemberInto(zf, &s); err != nil {
			return 0, fmt.Errorf("%s: %w", zf.Name, err)
		}
		return len(s), nil
	}
	var journal []*zip.File
	for name, zf := range last {
		if journalSumm.MatchString(name) {
			journal = append(journal, zf)
		}
	}
	if len(journal) == 0 {
		return 0, nil
	}
	seen := map[key]bool{}
	for _, zf := range journal {
		var s []summary
		if err := readMemberInto(zf, &s); err != nil {
			return 0, fmt.Errorf("%s: %w", zf.Name, err)
		}
		for _, x := range s {
			seen[key{string(x.ID), x.Epoch}] = true
		}
	}
	return len(seen), nil
}

func readMember(zf *zip.File) ([]byte, error) {
	return appendMember(nil, zf)
}

// appendMember appends the decompressed member to buf. A buffer with room
// for the member is used as it is, so a caller that reuses one allocates
// nothing per member. The compressed bytes are read with one call and
// inflated from memory: archive/zip's reader feeds the decompressor a few
// KB per read call, which made system calls a tenth of ingest's time.
func appendMember(buf []byte, zf *zip.File) ([]byte, error) {
	var inflate func(io.Reader) io.ReadCloser
	switch zf.Method {
	case zip.Store:
	case zip.Deflate:
		inflate = func(r io.Reader) io.ReadCloser { return kflate.NewReader(r) }
	case zstd.ZipMethodWinZip:
		inflate = zstdZip
	default:
		return nil, fmt.Errorf("%w (method %d)", zip.ErrAlgorithm, zf.Method)
	}
	if zf.CompressedSize64 > 1<<31 || zf.UncompressedSize64 > 1<<31 {
		return nil, fmt.Errorf("member of %d bytes (%d compressed) is too large to read", zf.UncompressedSize64, zf.CompressedSize64)
	}
	r, err := zf.OpenRaw()
	if err != nil {
		return nil, err
	}
	cp := compressedBuffers.Get().(*[]byte)
	defer compressedBuffers.Put(cp)
	comp := slices.Grow((*cp)[:0], int(zf.CompressedSize64))[:zf.CompressedSize64]
	if cap(comp) <= maxPooledCompressed {
		*cp = comp
	}
	if _, err := io.ReadFull(r, comp); err != nil {
		return nil, fmt.Errorf("reading member: %w", err)
	}
	n := len(buf)
	if inflate == nil {
		buf = append(buf, comp...)
	} else {
		rc := inflate(bytes.NewReader(comp))
		b := bytes.NewBuffer(slices.Grow(buf, int(zf.UncompressedSize64)+bytes.MinRead))
		_, err := b.ReadFrom(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("decompressing (method %d): %w", zf.Method, err)
		}
		buf = b.Bytes()
	}
	// The checks archive/zip's own reader makes.
	if uint64(len(buf)-n) != zf.UncompressedSize64 {
		return nil, fmt.Errorf("decompressing (method %d): %w: %d bytes, the central directory says %d", zf.Method, zip.ErrFormat, len(buf)-n, zf.UncompressedSize64)
	}
	if zf.CRC32 != 0 && crc32.ChecksumIEEE(buf[n:]) != zf.CRC32 {
		return nil, fmt.Errorf("decompressing (method %d): %w", zf.Method, zip.ErrChecksum)
	}
	return buf, nil
}

// zstdZip inflates method 93, possibly several concatenated frames per member
// (§1.3), with a pool of single-threaded decoders.
var zstdZip = zstd.ZipDecompressor(zstd.WithDecoderConcurrency(1))

// compressedBuffers hold a member's compressed bytes while it inflates.
var compressedBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledCompressed = 16 << 20

func readMemberInto(zf *zip.File, v any) error {
	b, err := readMember(zf)
	if err != nil {
		return err
	}
	if _, err := unmarshal(b, v); err != nil {
		return describeJSONError(b, err)
	}
	return nil
}

// Bytes returns the raw JSON of the sample.
func (r SampleRef) Bytes() ([]byte, error) {
	return r.AppendBytes(nil)
}

// AppendBytes appends the raw JSON of the sample to buf and returns the
// extended buffer; pass a reused buffer's buf[:0] to read without allocating.
func (r SampleRef) AppendBytes(buf []byte) ([]byte, error) {
	if r.zf != nil {
		return appendMember(buf, r.zf)
	}
	n := len(buf)
	buf = slices.Grow(buf, int(r.length))[:n+int(r.length)]
	if _, err := r.log.file.ReadAt(buf[n:], r.offset); err != nil {
		return nil, err
	}
	return buf, nil
}

// describeJSONError adds the byte offset and a short excerpt to a decode error.
func describeJSONError(b []byte, err error) error {
	var se *json.SyntaxError
	if ok := asSyntax(err, &se); ok {
		off := int(se.Offset)
		lo, hi := max(0, off-30), min(len(b), off+30)
		return fmt.Errorf("invalid JSON at offset %d near %q: %v", off, b[lo:hi], err)
	}
	return fmt.Errorf("invalid log JSON: %w", err)
}

func asSyntax(err error, target **json.SyntaxError) bool {
	se, ok := err.(*json.SyntaxError)
	if ok {
		*target = se
	}
	return ok
}
