package evallog

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"empties/internal/testutil"
)

// allocated runs f and returns the bytes the Go heap allocated meanwhile
// (freed or not): a bound on what f can have held at any time.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func writeLog(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The bombs inflate as their doc comments say, so the tests below test what
// they claim to.
func TestBombsInflateAsClaimed(t *testing.T) {
	z := testutil.ZstdBomb(64, ' ')
	zr, err := zstd.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	got, err := zr.DecodeAll(z, nil)
	if err != nil || len(got) != (len(z)-6)/4*128<<10 || strings.Trim(string(got), " ") != "" {
		t.Fatalf("zstd bomb of %d bytes: %d bytes (%v)", len(z), len(got), err)
	}
	d := testutil.DeflateBomb(8<<10, ' ')
	total, err := io.Copy(io.Discard, flate.NewReader(bytes.NewReader(d)))
	if err != nil {
		t.Fatal(err)
	}
	if total < int64(len(d))*500 {
		t.Fatalf("deflate bomb of %d bytes inflates to only %d", len(d), total)
	}
}

// A member that declares 1,000 bytes and holds a 4 MB bomb (128 GiB of
// spaces for zstd, 4 GB for deflate) is refused after 1,001 bytes, in
// bounded memory, naming what it did; before, it was inflated whole.
func TestLyingMemberRefusedInBoundedMemory(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method uint16
		bomb   []byte
	}{
		{"zstd", zstd.ZipMethodWinZip, testutil.ZstdBomb(4<<20, ' ')},
		{"deflate", zip.Deflate, testutil.DeflateBomb(4<<20, ' ')},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := testutil.Zip(t,
				testutil.Member{Name: "header.json", Method: zip.Deflate, Body: testutil.HeaderJSON("t", 1)},
				testutil.Member{Name: "samples/1_epoch_1.json", Method: tc.method, Raw: tc.bomb, Size: 1000, CRC: 1})
			p := writeLog(t, "bomb.eval", data)
			l, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if len(l.Samples) != 1 {
				t.Fatalf("%d samples", len(l.Samples))
			}
			var rerr error
			n := allocated(func() { _, rerr = l.Samples[0].Bytes() })
			if rerr == nil || !strings.Contains(rerr.Error(), "inflates past the 1000 bytes") || !errors.Is(rerr, zip.ErrFormat) {
				t.Fatalf("bomb read: %v", rerr)
			}
			// The compressed bytes (4 MB, read whole) and the decoder's state.
			if n > 24<<20 {
				t.Errorf("refusing the bomb allocated %d MB", n>>20)
			}
		})
	}
}

// A member honest about its size but beyond the cap is refused before it is
// read, and so is one declaring an implausible ratio; the header member is
// named by Open, a sample member is named by the ingest writer.
func TestMembersBeyondTheBoundsRefused(t *testing.T) {
	big := append([]byte(`{"id": 1, "epoch": 1, "pad": "`), bytes.Repeat([]byte("0123456789"), 300<<10)...) // 3 MB
	big = append(big, `"}`...)
	cases := []struct {
		name    string
		limits  Limits
		members []testutil.Member
		openErr string // error of Open, naming the member
		readErr string // error of reading the sample
	}{
		{
			name:   "sample beyond the cap",
			limits: Limits{MaxMember: 2 << 20},
			members: []testutil.Member{
				{Name: "header.json", Method: zip.Deflate, Body: testutil.HeaderJSON("t", 1)},
				{Name: "samples/1_epoch_1.json", Method: zstd.ZipMethodWinZip, Body: big},
			},
			readErr: fmt.Sprintf("member declares %d bytes, more than the cap of %d", len(big), 2<<20),
		},
		{
			name:   "header beyond the cap",
			limits: Limits{MaxMember: 2 << 20},
			members: []testutil.Member{
				{Name: "header.json", Method: zip.Deflate, Body: append(testutil.HeaderJSON("t", 0)[:1], append([]byte(`"pad": "`+strings.Repeat("x", 3<<20)+`", `), testutil.HeaderJSON("t", 0)[1:]...)...)},
			},
			openErr: "header.json: member declares",
		},
		{
			name:   "implausible ratio",
			limits: Limits{},
			members: []testutil.Member{
				{Name: "header.json", Method: zip.Deflate, Body: testutil.HeaderJSON("t", 1)},
				{Name: "samples/1_epoch_1.json", Method: zstd.ZipMethodWinZip, Raw: testutil.ZstdBomb(64<<10, ' '), Size: 1 << 30},
			},
			readErr: "more than 1000:1",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := testutil.Zip(t, tc.members...)
			p := writeLog(t, "x.eval", data)
			var l *Log
			var err error
			n := allocated(func() { l, err = OpenLimited(p, tc.limits) })
			if tc.openErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.openErr) {
					t.Fatalf("Open: %v, want %q", err, tc.openErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			n += allocated(func() { _, err = l.Samples[0].Bytes() })
			if err == nil || !strings.Contains(err.Error(), tc.readErr) {
				t.Fatalf("read: %v, want %q", err, tc.readErr)
			}
			if n > 8<<20 {
				t.Errorf("refusing allocated %d MB", n>>20)
			}
		})
	}
}

// A central directory declaring more compressed bytes than the file holds is
// refused before a buffer of that size is allocated.
func TestCompressedSizeBeyondTheFileRefused(t *testing.T) {
	data := testutil.Zip(t, testutil.Member{Name: "samples/1_epoch_1.json", Method: zip.Store, Body: []byte(`{"id": 1}`)})
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	zr.File[0].CompressedSize64, zr.File[0].UncompressedSize64 = 1<<40, 1<<40
	var rerr error
	if n := allocated(func() { _, rerr = appendMember(nil, zr.File[0], 1<<41, int64(len(data))) }); n > 1<<20 {
		t.Errorf("refusing allocated %d KB", n>>10)
	}
	if !errors.Is(rerr, zip.ErrFormat) || !strings.Contains(rerr.Error(), "more than the file's") {
		t.Fatalf("got %v", rerr)
	}
}

// A .json sample or header value beyond the cap is refused by name, without
// reading it into memory.
func TestJSONValuesBeyondTheCapRefused(t *testing.T) {
	pad := strings.Repeat("x", 3<<20)
	sampleDoc := `{"version": 2, "status": "success", "eval": {"created": "2026-01-01T00:00:00+00:00", "dataset": {}, "config": {}, "task": "t", "model": "m/x"}, "samples": [` +
		`{"id": 1, "epoch": 1}, {"id": 2, "epoch": 1, "pad": "` + pad + `"}]}`
	l, err := OpenLimited(writeLog(t, "s.json", []byte(sampleDoc)), Limits{MaxMember: 2 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Samples[0].Bytes(); err != nil {
		t.Fatalf("small sample: %v", err)
	}
	var rerr error
	if n := allocated(func() { _, rerr = l.Samples[1].Bytes() }); n > 1<<20 {
		t.Errorf("refusing allocated %d KB", n>>10)
	}
	if rerr == nil || !strings.Contains(rerr.Error(), "larger than the cap of 2097152") || l.Samples[1].Member != "samples[1]" {
		t.Fatalf("big sample %s: %v", l.Samples[1].Member, rerr)
	}

	headerDoc := `{"version": 2, "status": "success", "eval": {"created": "2026-01-01T00:00:00+00:00", "dataset": {}, "config": {}, "task": "t", "model": "m/x"}, "metadata": {"pad": "` + pad + `"}, "samples": []}`
	_, err = OpenLimited(writeLog(t, "h.json", []byte(headerDoc)), Limits{MaxMember: 2 << 20})
	if err == nil || !strings.Contains(err.Error(), "metadata: a value of more than the cap") {
		t.Fatalf("big header value: %v", err)
	}
	if _, err := Open(writeLog(t, "h2.json", []byte(headerDoc))); err != nil {
		t.Fatalf("under the default cap: %v", err)
	}
}
