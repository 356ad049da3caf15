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
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	json "github.com/goccy/go-json"
	kflate "github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"
)

// Format of a log file.
const (
	FormatEval = "eval"
	FormatJSON = "json"
)

// A log's status (EvalLog.status, inspect_ai's EvalStatus). A log read from
// its journal (a running or killed run) is started, as inspect_ai reads it.
const (
	StatusStarted   = "started"
	StatusSuccess   = "success"
	StatusCancelled = "cancelled"
	StatusError     = "error"
)

// Statuses are inspect_ai's log statuses (its model's, inspect_model.go),
// sorted.
func Statuses() []string { return sortedSet(inspectStatuses) }

// How a model call used inspect's local cache (ModelEvent.cache; absent when
// it did not): served from it (not billed), or written to it.
const (
	CacheRead  = "read"
	CacheWrite = "write"
)

// CacheModes are inspect_ai's ModelEvent.cache values (inspect_model.go),
// sorted.
func CacheModes() []string { return sortedSet(inspectCache) }

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
	// Missing lists the samples that summaries.json (or the journal) lists
	// but that have no member (.eval only): the log says they were written,
	// and they cannot be read.
	Missing []MissingSample

	file       readerAtCloser
	zr         *zip.Reader
	maxMember  int64                  // Limits.MaxMember
	noHash     bool                   // Source.NoHash
	hashLater  func() (string, error) // Source.Hash, or the hash of hash(), for FinishHash
	hashBeside bool                   // Limits.HashBeside
	hashing    chan struct{}          // closed once hash()'s goroutine is done
	stopHash   atomic.Bool            // Close stops hash()'s goroutine
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

// Close releases the file (once its hashing, if any, has stopped).
func (l *Log) Close() error {
	if l.file == nil {
		return nil
	}
	if l.hashing != nil {
		l.stopHash.Store(true)
		<-l.hashing
	}
	err := l.file.Close()
	l.file = nil
	return err
}

// MissingSample is a sample the log's summaries list without its member.
type MissingSample struct {
	ID     string // the id as text, as the member name spells it
	Epoch  int
	Member string // the member expected: samples/<id>_epoch_<n>.json
	Source string // where the sample is listed: summaries.json or _journal/summaries/<n>.json
}

// ErrChunked reports the chunked sample layout.
var ErrChunked = fmt.Errorf("chunked sample layout (samples/<id>_epoch_<n>/sample.json with its chunk folders, written by `inspect log convert-chunked`) is not supported: inspect_ai 0.3.285's read_eval_log cannot read it either (it takes every samples/*.json member for a whole sample); keep the monolithic .eval it was converted from")

// Limits bound what reading one log may cost in memory.
type Limits struct {
	// MaxMember is the most bytes one member may hold inflated (and one
	// .json sample or header value): a larger one is refused, by name,
	// before it is read. 0 means DefaultMaxMember.
	MaxMember int64
	// HashBeside hashes an .eval file beside the reads of its samples, on
	// a goroutine of its own, instead of before OpenLimited returns:
	// SHA256 is then set by FinishHash, which waits for it.
	HashBeside bool
}

// DefaultMaxMember is the default Limits.MaxMember: twice the largest sample
// inspect_ai's design targets (963 MB, design/large-samples.md).
const DefaultMaxMember = 2 << 30

// MaxRatio is the most inflated bytes per compressed byte a member may
// declare once it declares more than ratioFloor (256 MiB); beyond it the member
// is refused before it is inflated. The most the shared corpora and the
// fixtures reach is 45:1 (a zstd reductions.json); a synthetic worst case, a
// sample of 1,000 model events each repeating the whole conversation inline,
// reaches 754:1 with inspect_ai's zstd. Deflate cannot exceed 1,032:1, so
// only a member that is nearly all one repeated byte (or a lie) reaches it.
const MaxRatio = 1000

// ratioFloor: a member that declares less than this costs little even if it
// is all padding, and smaller members do exceed MaxRatio honestly (a 21 MB
// reply of one phrase repeated, as a model stuck in a loop writes it,
// compresses 8,600:1 with zstd).
const ratioFloor = 256 << 20

func (lim Limits) maxMember() int64 {
	if lim.MaxMember > 0 {
		return lim.MaxMember
	}
	return DefaultMaxMember
}

// Open opens a log file with the default Limits.
func Open(p string) (*Log, error) {
	return OpenLimited(p, Limits{})
}

// OpenLimited opens a log file, reads its header and lists its samples;
// every member and .json value it reads, then or later through the
// SampleRefs, is bounded by lim. Errors name the file and, where one is at
// fault, the member.
func OpenLimited(p string, lim Limits) (*Log, error) {
	f, st, err := OpenRegular(p)
	if err != nil {
		return nil, err
	}
	return open(&Log{Path: p, Size: st.Size(), file: f, Summaries: -1, maxMember: lim.maxMember(), hashBeside: lim.HashBeside})
}

// OpenRegular opens a file for reading if it is a regular file. The open
// does not wait (O_NONBLOCK: a named pipe's open would wait for a writer,
// forever), and what it opened is checked (fstat), not a name looked at
// before: a FIFO or device put where a log was is refused, never read.
func OpenRegular(p string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is %s, not a log", p, NotRegular(st.Mode()))
	}
	return f, st, nil
}

// NotRegular says what kind of file m is, that is no regular file.
func NotRegular(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "not a regular file (a named pipe)"
	case m&fs.ModeSocket != 0:
		return "not a regular file (a socket)"
	case m&fs.ModeCharDevice != 0:
		return "not a regular file (a character device)"
	case m&fs.ModeDevice != 0:
		return "not a regular file (a device)"
	case m.IsDir():
		return "not a regular file (a folder)"
	}
	return "not a regular file"
}

// Source is a log held somewhere other than a local file, an object in a
// bucket for instance (internal/objstore), read through ranged reads.
type Source struct {
	Name string // what Log.Path says: the object's URL
	Size int64
	// ReaderAt reads the log's bytes; the zip's central directory and the
	// members are read through it, each in one call.
	ReaderAt io.ReaderAt
	// Hash, if set, gives an .eval log's SHA-256 in place of reading the
	// whole log through ReaderAt as it opens: Log.FinishHash calls it, once
	// the samples are read. internal/objstore hashes an object as it
	// downloads it for the member reads, so that each byte is fetched once.
	Hash func() (string, error)
	// Close releases what the source holds, once the log is closed.
	Close func() error
	// NoHash leaves an .eval log's SHA256 empty, so that opening it reads
	// only its central directory and header members: a header-only read.
	NoHash bool
}

// OpenSource opens a log from a Source, as OpenLimited opens a file.
func OpenSource(src Source, lim Limits) (*Log, error) {
	l := &Log{Path: src.Name, Size: src.Size, file: sourceFile{src}, Summaries: -1, maxMember: lim.maxMember(), noHash: src.NoHash, hashLater: src.Hash}
	return open(l)
}

// readerAtCloser is what a log is read from: an *os.File or a sourceFile.
type readerAtCloser interface {
	io.ReaderAt
	io.Closer
}

type sourceFile struct{ src Source }

func (s sourceFile) ReadAt(p []byte, off int64) (int, error) { return s.src.ReaderAt.ReadAt(p, off) }

func (s sourceFile) Close() error {
	if s.src.Close == nil {
		return nil
	}
	return s.src.Close()
}

// open reads the header and lists the samples of l, whose file is open; on
// an error it closes the file.
func open(l *Log) (*Log, error) {
	f, p := l.file, l.Path
	var magic [4]byte
	n, err := f.ReadAt(magic[:], 0)
	isZip := n == 4 && (string(magic[:]) == "PK\x03\x04" || strings.HasSuffix(p, ".eval") && string(magic[:]) == "PK\x05\x06")
	var first byte
	if !isZip && (err == nil || err == io.EOF) {
		first, err = firstNonSpace(f)
	}
	if err != nil && err != io.EOF {
		// The file could not be read (a failed disk, a GET that broke
		// off): not a judgement on what it holds.
		f.Close()
		return nil, fmt.Errorf("reading its first bytes: %w", err)
	}
	switch {
	case isZip:
		l.Format = FormatEval
		if err = l.hash(); err == nil {
			err = l.openZip()
		}
	case first == '{':
		l.Format = FormatJSON
		err = l.openJSON() // hashes as it scans
	case strings.HasSuffix(p, ".eval"):
		err = fmt.Errorf("not a zip archive (an .eval log is a zip file); the file may be truncated or not a log")
	default:
		err = fmt.Errorf("not an Inspect log: expected a zip archive (.eval) or a JSON object (.json)")
	}
	if err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// hash hashes the file, or with Limits.HashBeside starts hashing it beside
// the reads of its members, on a goroutine of its own, so that the samples
// of a large log are read while it is hashed: FinishHash waits for the
// sum; Close stops the hashing and waits for it before it closes the file.
func (l *Log) hash() error {
	if l.noHash || l.hashLater != nil {
		return nil
	}
	if !l.hashBeside {
		h, bp := sha256.New(), readBuffers.Get().(*[]byte)
		defer readBuffers.Put(bp)
		if _, err := io.CopyBuffer(h, io.NewSectionReader(l.file, 0, l.Size), *bp); err != nil {
			return err
		}
		l.SHA256 = hex.EncodeToString(h.Sum(nil))
		return nil
	}
	done := make(chan struct{})
	var sum string
	var err error
	go func() {
		defer close(done)
		h, bp := sha256.New(), readBuffers.Get().(*[]byte)
		defer readBuffers.Put(bp)
		buf := *bp
		for off := int64(0); off < l.Size && !l.stopHash.Load(); {
			n, rerr := l.file.ReadAt(buf[:min(int64(len(buf)), l.Size-off)], off)
			h.Write(buf[:n])
			off += int64(n)
			if rerr != nil && (rerr != io.EOF || off < l.Size) {
				err = rerr
				return
			}
		}
		if l.stopHash.Load() {
			err = errors.New("closed before it was hashed")
			return
		}
		sum = hex.EncodeToString(h.Sum(nil))
	}()
	l.hashing = done
	l.hashLater = func() (string, error) {
		<-done
		return sum, err
	}
	return nil
}

// readBuffers hold the 1 MiB buffers a log file is read through as it is
// hashed, or as a .json log is scanned (openJSON): making and zeroing one
// for every log was a tenth of what opening the wild corpus's small logs
// cost.
var readBuffers = sync.Pool{New: func() any { b := make([]byte, readBufferSize); return &b }}

const readBufferSize = 1 << 20

// FinishHash fills in SHA256 when the log is hashed beside the reads of
// its samples (Limits.HashBeside) or its Source defers it (Source.Hash);
// call it once the samples are read. Otherwise it does nothing.
func (l *Log) FinishHash() error {
	if l.hashLater == nil || l.SHA256 != "" || l.noHash || l.Format != FormatEval {
		return nil
	}
	sum, err := l.hashLater()
	if err != nil {
		return err
	}
	l.SHA256 = sum
	return nil
}

func firstNonSpace(f io.ReaderAt) (byte, error) {
	var buf [512]byte
	n, err := f.ReadAt(buf[:], 0)
	for _, c := range buf[:n] {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case 0xEF, 0xBB, 0xBF: // UTF-8 byte order mark
			continue
		}
		return c, nil
	}
	return 0, err
}

// Sample members (§1.4). inspect_ai writes a sample to
// samples/{id}_epoch_{epoch}.json with the id as str() gives it, so an id
// that contains "/" puts its member one folder deeper
// (samples/cybashbench_pwn/nl2bash_038_epoch_1.json), and its reader takes
// every member under samples/ that ends in .json for a sample. The id is
// everything before the last "_epoch_<n>", which only the epoch can end.
//
// The chunked layout (inspect_ai.log._recorders.chunked.format) is told apart
// by its real signature only: a shell samples/{id}_epoch_{n}/sample.json
// (a name no monolithic member can have: those end in _epoch_<n>.json) and,
// beside it, the skeleton or a chunk of one of its sequences. names.go
// parses the names.

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
		if _, seen := last[zf.Name]; !seen {
			order = append(order, zf.Name)
		}
		last[zf.Name] = zf
	}
	for _, name := range order {
		if shell, ok := chunkedPartShell(name); ok && last[shell+"/sample.json"] != nil {
			return fmt.Errorf("%s/sample.json: %w", shell, ErrChunked)
		}
	}

	if zf := last["header.json"]; zf != nil {
		if err := l.readHeader(zf, false); err != nil {
			return fmt.Errorf("%s: %w", zf.Name, err)
		}
		l.HeaderSource = HeaderFromHeader
	} else if zf := last["_journal/start.json"]; zf != nil {
		// A running or killed log: synthesise the header like inspect_ai
		// does, with status "started" and no results (§1.2).
		if err := l.readHeader(zf, true); err != nil {
			return fmt.Errorf("%s: %w", zf.Name, err)
		}
		l.Header.Status = StatusStarted
		l.HeaderSource = HeaderFromJournal
	} else {
		return fmt.Errorf("no header.json and no _journal/start.json: not an Inspect log, or a log whose writer died before its first flush")
	}

	// inspect_ai reads the reductions after the header (reductions.go)
	if zf := last["reductions.json"]; zf != nil {
		if err := l.checkReductions(zf); err != nil {
			return fmt.Errorf("%s: %w", zf.Name, err)
		}
	}

	listed, err := l.readSummaries(last)
	if err != nil {
		return err
	}
	if listed != nil {
		l.Summaries = len(listed)
	} else {
		l.Summaries = 0
	}

	for _, name := range order {
		if !strings.HasPrefix(name, "samples/") || !strings.HasSuffix(name, ".json") {
			continue
		}
		// Any other member under samples/ is read as a sample too, as
		// inspect_ai reads it; its id and epoch come from its content.
		ref := SampleRef{Member: name, ID: strings.TrimSuffix(strings.TrimPrefix(name, "samples/"), ".json"), zf: last[name], log: l}
		if id, epoch, ok := sampleName(name); ok {
			ref.ID = id
			ref.Epoch, _ = strconv.Atoi(epoch)
		}
		l.Samples = append(l.Samples, ref)
	}
	// A listed sample without its member. A log written with
	// log_samples=False lists summaries and holds no samples on purpose.
	if logsSamples(l.Header.Eval.Config) {
		for _, s := range listed {
			member := "samples/" + s.ID + "_epoch_" + strconv.Itoa(s.Epoch) + ".json"
			if last[member] == nil {
				l.Missing = append(l.Missing, MissingSample{ID: s.ID, Epoch: s.Epoch, Member: member, Source: s.source})
			}
		}
	}
	// inspect_ai sorts samples by (epoch, id), integer ids compared as
	// zero-padded strings (§1.4). Each id's key is made once, not at every
	// comparison.
	keys := make([]string, len(l.Samples))
	for i, r := range l.Samples {
		keys[i] = idSortKey(r.ID)
	}
	sort.Stable(byEpochID{l.Samples, keys})
	return nil
}

// byEpochID sorts samples by epoch, then by their ids' keys (idSortKey).
type byEpochID struct {
	refs []SampleRef
	keys []string
}

func (s byEpochID) Len() int { return len(s.refs) }

func (s byEpochID) Less(i, j int) bool {
	if a, b := s.refs[i].Epoch, s.refs[j].Epoch; a != b {
		return a < b
	}
	return s.keys[i] < s.keys[j]
}

func (s byEpochID) Swap(i, j int) {
	s.refs[i], s.refs[j] = s.refs[j], s.refs[i]
	s.keys[i], s.keys[j] = s.keys[j], s.keys[i]
}

func idSortKey(id string) string {
	if _, err := strconv.ParseUint(id, 10, 64); err == nil && len(id) < 20 {
		return zeros[:20-len(id)] + id
	}
	return id
}

const zeros = "00000000000000000000"

// listedSample is one row of the summaries: a sample the writer flushed.
type listedSample struct {
	ID     string
	Epoch  int
	source string
}

// readSummaries lists the samples of summaries.json, or for an unfinished
// log of the journal, de-duplicated by (str(id), epoch) with the last row
// winning, as inspect_ai's _read_all_summaries does (§1.4). It returns nil
// when the log has neither.
func (l *Log) readSummaries(last map[string]*zip.File) ([]listedSample, error) {
	var members []*zip.File
	if zf := last["summaries.json"]; zf != nil {
		members = []*zip.File{zf}
	} else {
		var index []int
		for name, zf := range last {
			if k, ok := journalSummaryIndex(name); ok {
				n, _ := strconv.Atoi(k)
				members, index = append(members, zf), append(index, n)
			}
		}
		// in index order, so a superseded row precedes its re-run's
		sort.Sort(byIndex{members, index})
	}
	if len(members) == 0 {
		return nil, nil
	}
	type key struct {
		id    string
		epoch int
	}
	index := map[key]int{}
	out := []listedSample{}
	for _, zf := range members {
		err := l.readSummaryRows(zf, func(x summary) {
			id := summaryID(x.ID)
			k := key{id, x.Epoch}
			if i, ok := index[k]; ok {
				out[i].source = zf.Name
				return
			}
			index[k] = len(out)
			out = append(out, listedSample{ID: id, Epoch: x.Epoch, source: zf.Name})
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", zf.Name, err)
		}
	}
	return out, nil
}

// byIndex sorts the journal's summaries members by their numbers, and two
// of one number (1.json, 01.json) by name: inspect_ai sorts them by int()
// in a set's order, which no run fixes; this order is the same every run.
type byIndex struct {
	members []*zip.File
	index   []int
}

func (s byIndex) Len() int { return len(s.members) }
func (s byIndex) Less(i, j int) bool {
	if s.index[i] != s.index[j] {
		return s.index[i] < s.index[j]
	}
	return s.members[i].Name < s.members[j].Name
}
func (s byIndex) Swap(i, j int) {
	s.members[i], s.members[j] = s.members[j], s.members[i]
	s.index[i], s.index[j] = s.index[j], s.index[i]
}

// summaryID is str(id) of a summary's int or str id.
func summaryID(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		if s, err := DecodeString(raw); err == nil {
			return s
		}
	}
	return string(raw)
}

// logsSamples reports whether the eval config logged samples (log_samples,
// true unless set false).
func logsSamples(config json.RawMessage) bool {
	var c struct {
		LogSamples *bool `json:"log_samples"`
	}
	if isNull(config) {
		return true
	}
	if _, err := unmarshal(config, &c); err != nil {
		return true
	}
	return c.LogSamples == nil || *c.LogSamples
}

// appendMember appends the decompressed member to buf. A buffer with room
// for the member is used as it is, so a caller that reuses one allocates
// nothing per member. The compressed bytes are read with one call and
// inflated from memory: archive/zip's reader feeds the decompressor a few
// KB per read call, which made system calls a tenth of ingest's time.
//
// What the central directory declares is a promise the bytes must keep, and
// it bounds the cost: a member declaring more than maxMember bytes, more
// compressed bytes than the file holds, or an implausible ratio (MaxRatio)
// is refused before anything is read, and the inflater is read through a
// limit of the declared size plus one byte, so a member that inflates past
// its declared size is refused after that many bytes.
func appendMember(buf []byte, zf *zip.File, maxMember, fileSize int64) ([]byte, error) {
	inflate, err := checkDeclared(zf, maxMember, fileSize)
	if err != nil {
		return nil, err
	}
	size, csize := zf.UncompressedSize64, zf.CompressedSize64
	r, err := zf.OpenRaw()
	if err != nil {
		return nil, err
	}
	cp := compressedBuffers.Get().(*[]byte)
	defer compressedBuffers.Put(cp)
	comp := slices.Grow((*cp)[:0], int(csize))[:csize]
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
		// One byte more than declared: reading it means the member lies.
		buf = slices.Grow(buf, int(size)+1)[:n+int(size)+1]
		var got int
		if zf.Method == zip.Deflate {
			fr := flateReaders.Get().(io.ReadCloser)
			fr.(kflate.Resetter).Reset(bytes.NewReader(comp), nil)
			got, err = io.ReadFull(fr, buf[n:])
			// Let go of comp, which may be a large member's.
			fr.(kflate.Resetter).Reset(noBytes, nil)
			flateReaders.Put(fr)
		} else {
			rc := inflate(bytes.NewReader(comp))
			got, err = io.ReadFull(rc, buf[n:])
			rc.Close()
		}
		switch {
		case err == nil:
			return nil, fmt.Errorf("decompressing (method %d): %w: the member inflates past the %d bytes the central directory declares", zf.Method, zip.ErrFormat, size)
		case uint64(got) == size && (err == io.ErrUnexpectedEOF || err == io.EOF):
		case err == io.ErrUnexpectedEOF || err == io.EOF:
			// The checks archive/zip's own reader makes.
			return nil, fmt.Errorf("decompressing (method %d): %w: %d bytes, the central directory says %d", zf.Method, zip.ErrFormat, got, size)
		default:
			return nil, fmt.Errorf("decompressing (method %d): %w", zf.Method, err)
		}
		buf = buf[:n+got]
	}
	if zf.CRC32 != 0 && crc32.ChecksumIEEE(buf[n:]) != zf.CRC32 {
		return nil, fmt.Errorf("decompressing (method %d): %w", zf.Method, zip.ErrChecksum)
	}
	return buf, nil
}

// checkDeclared checks what the central directory declares of a member
// against the caps (see appendMember) and returns its inflater (nil for a
// stored member).
func checkDeclared(zf *zip.File, maxMember, fileSize int64) (func(io.Reader) io.ReadCloser, error) {
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
	size, csize := zf.UncompressedSize64, zf.CompressedSize64
	switch {
	case size > uint64(maxMember):
		return nil, fmt.Errorf("member declares %d bytes, more than the cap of %d (ingest --max-member-mb)", size, maxMember)
	case csize > uint64(fileSize):
		return nil, fmt.Errorf("%w: member declares %d compressed bytes, more than the file's %d", zip.ErrFormat, csize, fileSize)
	case inflate == nil && csize != size:
		return nil, fmt.Errorf("%w: stored member declares %d bytes but holds %d", zip.ErrFormat, size, csize)
	case csize > uint64(maxMember)+uint64(maxMember)/64+1<<20:
		// More than any compressor's worst-case expansion of the cap.
		return nil, fmt.Errorf("member holds %d compressed bytes, more than the cap of %d can compress to (ingest --max-member-mb)", csize, maxMember)
	case inflate != nil && size > ratioFloor && size > csize*MaxRatio:
		return nil, fmt.Errorf("member declares %d bytes from %d compressed, more than %d:1, which no log compresses to; refused without inflating it", size, csize, MaxRatio)
	}
	return inflate, nil
}

// flateReaders are deflate decompressors reused from member to member (a
// Reset one inflates as a new one does): making one, with its window and
// tables, for every member was 3% of the decode floor on the wild corpus,
// whose older logs deflate their members.
var flateReaders = sync.Pool{New: func() any { return kflate.NewReader(noBytes) }}

var noBytes = bytes.NewReader(nil)

// zstdZip inflates method 93, possibly several concatenated frames per member
// (§1.3), with a pool of single-threaded decoders.
var zstdZip = zstd.ZipDecompressor(zstd.WithDecoderConcurrency(1))

// compressedBuffers hold a member's compressed bytes while it inflates.
var compressedBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledCompressed = 16 << 20

// readHeader reads the header member zf into l.Header and checks its
// shape (checkHeader).
func (l *Log) readHeader(zf *zip.File, journal bool) error {
	b, err := appendMember(nil, zf, l.maxMember, l.Size)
	if err != nil {
		return err
	}
	b, _ = lastKeyWins(b)
	if _, err := unmarshal(b, &l.Header); err != nil {
		return describeJSONError(b, err)
	}
	return checkHeader(b, &l.Header, journal)
}

// RawSize is the size of the sample's raw JSON: the member's uncompressed
// size as the central directory gives it, or the value's length in a .json
// log.
func (r SampleRef) RawSize() int64 {
	if r.zf != nil {
		return int64(min(r.zf.UncompressedSize64, 1<<62))
	}
	return r.length
}

// Bytes returns the raw JSON of the sample.
func (r SampleRef) Bytes() ([]byte, error) {
	return r.AppendBytes(nil)
}

// AppendBytes appends the raw JSON of the sample to buf and returns the
// extended buffer; pass a reused buffer's buf[:0] to read without allocating.
func (r SampleRef) AppendBytes(buf []byte) ([]byte, error) {
	if r.zf != nil {
		return appendMember(buf, r.zf, r.log.maxMember, r.log.Size)
	}
	if r.length > r.log.maxMember {
		return nil, fmt.Errorf("sample of %d bytes is larger than the cap of %d (ingest --max-member-mb)", r.length, r.log.maxMember)
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
