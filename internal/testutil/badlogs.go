package testutil

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// The generators below write the damaged and hostile logs of the
// adversarial tests: what a reader may meet on a user's disk (a copy cut
// short, a corrupt central directory, a member whose CRC or size is wrong)
// or from a hostile file (a member that inflates to gigabytes, nesting a
// million deep). They start from members given here or from a real log.

// Member is one zip member to write.
type Member struct {
	Name   string
	Method uint16 // zip.Store, zip.Deflate or zstd.ZipMethodWinZip
	Body   []byte // compressed by the writer with Method
	// Raw, when not nil, is written as the member's compressed bytes as
	// they are, with Size and CRC declared for it whatever it inflates to.
	Raw  []byte
	Size uint64
	CRC  uint32
}

// Zip writes members into a zip archive, in order.
func Zip(t testing.TB, members ...Member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zstd.ZipMethodWinZip, zstd.ZipCompressor())
	for _, m := range members {
		var w io.Writer
		var err error
		if m.Raw != nil {
			w, err = zw.CreateRaw(&zip.FileHeader{Name: m.Name, Method: m.Method, CRC32: m.CRC,
				CompressedSize64: uint64(len(m.Raw)), UncompressedSize64: m.Size})
		} else {
			w, err = zw.CreateHeader(&zip.FileHeader{Name: m.Name, Method: m.Method})
		}
		if err != nil {
			t.Fatal(err)
		}
		body := m.Body
		if m.Raw != nil {
			body = m.Raw
		}
		if _, err := w.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// RewriteZip copies a zip member by member through edit (a nil body drops
// the member), adding empty extra members.
func RewriteZip(t testing.TB, src, dst string, edit func(string, []byte) []byte, extra ...string) {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, m := range zr.File {
		rc, err := m.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(rc)
		rc.Close()
		body = edit(m.Name, body)
		if body == nil {
			continue
		}
		w, _ := zw.Create(m.Name)
		w.Write(body)
	}
	for _, name := range extra {
		w, _ := zw.Create(name)
		w.Write([]byte(`{}`))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// DropMember copies the log src to dst without its member (a sample the
// summaries list with no member: a hole in a readable log).
func DropMember(t testing.TB, src, dst, member string) {
	t.Helper()
	RewriteZip(t, src, dst, func(name string, body []byte) []byte {
		if name == member {
			return nil
		}
		return body
	})
}

// HeaderJSON is a minimal header.json that inspect_ai's reader accepts.
func HeaderJSON(task string, samples int) []byte {
	return fmt.Appendf(nil, `{"version": 2, "status": "success", "eval": {"eval_id": "e-%s", "run_id": "r", "task": %q, "task_id": "t", "created": "2026-01-01T00:00:00+00:00", "model": "mockllm/model", "dataset": {"samples": %d}, "config": {}}, "plan": {"name": "plan", "steps": [], "config": {}}, "stats": {"started_at": "", "completed_at": ""}}`, task, task, samples)
}

// SampleJSON is a minimal sample whose reply is its output (no events).
func SampleJSON(id any, epoch int, reply string, extra string) []byte {
	idJSON := fmt.Sprint(id)
	if s, ok := id.(string); ok {
		idJSON = fmt.Sprintf("%q", s)
	}
	if extra != "" {
		extra = ", " + extra
	}
	return fmt.Appendf(nil, `{"id": %s, "epoch": %d, "input": "q", "target": "t", "output": {"model": "mockllm/model", "choices": [{"message": {"role": "assistant", "content": %q}, "stop_reason": "stop"}]}, "scores": {"match": {"value": "C"}}%s}`, idJSON, epoch, reply, extra)
}

// EvalLog is an .eval of header.json and one sample member per body, named
// samples/<i+1>_epoch_1.json, zstd-compressed like inspect_ai's.
func EvalLog(t testing.TB, task string, samples ...[]byte) []byte {
	t.Helper()
	ms := []Member{{Name: "header.json", Method: zstd.ZipMethodWinZip, Body: HeaderJSON(task, len(samples))}}
	for i, s := range samples {
		ms = append(ms, Member{Name: fmt.Sprintf("samples/%d_epoch_1.json", i+1), Method: zstd.ZipMethodWinZip, Body: s})
	}
	return Zip(t, ms...)
}

// ZstdBomb is a zstd frame of at least compressed bytes that inflates to
// 32,768 times as many bytes of fill: run-length blocks of 128 KiB, four
// bytes each, which every decoder accepts.
func ZstdBomb(compressed int, fill byte) []byte {
	const block = 128 << 10
	out := []byte{0x28, 0xb5, 0x2f, 0xfd, // magic
		0x00,           // no content size, no checksum: a window descriptor follows
		(17 - 10) << 3, // window 2^17: blocks may hold 128 KiB
	}
	n := max(1, (compressed-len(out))/4)
	for i := range n {
		h := uint32(block)<<3 | 1<<1 // RLE block
		if i == n-1 {
			h |= 1 // last block
		}
		out = append(out, byte(h), byte(h>>8), byte(h>>16), fill)
	}
	return out
}

// DeflateBomb is a deflate stream of at least compressed bytes that inflates
// to about 1,000 times as many bytes of fill: one flushed block of 1 MiB of
// fill repeated (it refers back only to fill, so any number of copies is a
// valid stream).
func DeflateBomb(compressed int, fill byte) []byte {
	chunk := bytes.Repeat([]byte{fill}, 1<<20)
	var b bytes.Buffer
	fw, _ := flate.NewWriter(&b, flate.BestCompression)
	fw.Write(chunk)
	fw.Flush()
	out := bytes.Clone(b.Bytes())
	b.Reset()
	fw.Write(chunk)
	fw.Flush()
	mid := bytes.Clone(b.Bytes())
	for len(out) < compressed {
		out = append(out, mid...)
	}
	b.Reset()
	fw.Close()
	return append(out, b.Bytes()...)
}

// Rewrite copies a zip archive member by member (compressed bytes as they
// are); edit may change a member's header or bytes, or drop it (false).
func Rewrite(t testing.TB, data []byte, edit func(h *zip.FileHeader, raw []byte) ([]byte, bool)) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		r, err := f.OpenRaw()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		h := f.FileHeader
		raw, keep := edit(&h, raw)
		if !keep {
			continue
		}
		h.CompressedSize64 = uint64(len(raw))
		w, err := zw.CreateRaw(&h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(raw)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// CorruptCentralDirectory damages the first central-directory entry's
// signature, as a bad sector or a partial overwrite would.
func CorruptCentralDirectory(t testing.TB, data []byte) []byte {
	t.Helper()
	eocd := bytes.LastIndex(data, []byte("PK\x05\x06"))
	if eocd < 0 || eocd+20 > len(data) {
		t.Fatal("no end of central directory record")
	}
	off := binary.LittleEndian.Uint32(data[eocd+16:])
	out := bytes.Clone(data)
	if int(off)+4 > len(out) || string(out[off:off+4]) != "PK\x01\x02" {
		t.Fatal("central directory not where the end record says")
	}
	copy(out[off:], "XXXX")
	return out
}

// WrongCRC rewrites a zip with the named member's CRC-32 off by one bit.
func WrongCRC(t testing.TB, data []byte, name string) []byte {
	return Rewrite(t, data, func(h *zip.FileHeader, raw []byte) ([]byte, bool) {
		if h.Name == name {
			h.CRC32 ^= 1
		}
		return raw, true
	})
}

// WithoutMember rewrites a zip without the members whose names have prefix.
func WithoutMember(t testing.TB, data []byte, prefix string) []byte {
	return Rewrite(t, data, func(h *zip.FileHeader, raw []byte) ([]byte, bool) {
		return raw, !strings.HasPrefix(h.Name, prefix)
	})
}

// DeepNesting is a JSON value nested depth arrays deep.
func DeepNesting(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

// CRC is the CRC-32 a member with body would declare.
func CRC(body []byte) uint32 { return crc32.ChecksumIEEE(body) }
