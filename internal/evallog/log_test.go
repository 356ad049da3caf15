package evallog

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"empties/internal/testutil"
)

// The content hash is the SHA-256 of the file's bytes, however the file was
// read: .eval logs are hashed in one pass, .json logs while they are scanned.
func TestOpenHashesTheWholeFile(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/logs/*.eval")
	jsons, _ := filepath.Glob("../../testdata/logs/*.json")
	jsons = slices.DeleteFunc(jsons, func(p string) bool { return filepath.Base(p) == "EXPECT.json" }) // not a log
	paths = append(paths, jsons...)
	if len(jsons) == 0 || len(paths) < 10 {
		t.Fatalf("fixture logs missing: %v", paths)
	}
	// A .json log larger than the scanner's buffer, followed by bytes after
	// its object (3 MB of whitespace, more than one read) that the hash must
	// cover.
	var big strings.Builder
	big.WriteString(`{"version": 2, "status": "success", "eval": {"created": "2026-01-01T00:00:00+00:00", "dataset": {}, "config": {}, "task": "t", "model": "m/x"}, "samples": [`)
	for i := range 300 {
		if i > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, `{"id": %d, "epoch": 1, "metadata": {"pad": %q}}`, i, strings.Repeat("x", 8000))
	}
	big.WriteString("]}\n" + strings.Repeat(" ", 3<<20) + "\n")
	paths = append(paths, writeTemp(t, "big.json", big.String()))

	for _, p := range paths {
		l, err := Open(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		l.Close()
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if want := hex.EncodeToString(sum[:]); l.SHA256 != want {
			t.Errorf("%s: SHA256 %s, want %s", filepath.Base(p), l.SHA256, want)
		}
	}
}

// A member whose bytes were damaged is an error naming what failed, for
// every compression method, never a silently wrong read.
func TestDamagedMembersFail(t *testing.T) {
	body := []byte(strings.Repeat(`{"id": 1, "epoch": 1, "text": "the same words again and again"} `, 200))
	for _, tc := range []struct {
		name   string
		method uint16
	}{{"stored", zip.Store}, {"deflate", zip.Deflate}, {"zstd", zstd.ZipMethodWinZip}} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			zw := zip.NewWriter(&buf)
			zw.RegisterCompressor(zstd.ZipMethodWinZip, zstd.ZipCompressor())
			w, err := zw.CreateHeader(&zip.FileHeader{Name: "samples/1_epoch_1.json", Method: tc.method})
			if err != nil {
				t.Fatal(err)
			}
			w.Write(body)
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			good := buf.Bytes()
			zr, err := zip.NewReader(bytes.NewReader(good), int64(len(good)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendMember([]byte("kept:"), zr.File[0], DefaultMaxMember, int64(len(good)))
			if err != nil || string(got) != "kept:"+string(body) {
				t.Fatalf("intact member: err %v, %d bytes", err, len(got))
			}

			// Flip one byte in the middle of the compressed data.
			off, err := zr.File[0].DataOffset()
			if err != nil {
				t.Fatal(err)
			}
			bad := bytes.Clone(good)
			bad[off+int64(zr.File[0].CompressedSize64)/2] ^= 0x55
			zr, err = zip.NewReader(bytes.NewReader(bad), int64(len(bad)))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := appendMember(nil, zr.File[0], DefaultMaxMember, int64(len(bad))); err == nil {
				t.Fatalf("damaged member read without error (%d bytes)", len(got))
			} else if !strings.Contains(err.Error(), fmt.Sprintf("method %d", tc.method)) {
				t.Errorf("error does not name the method: %v", err)
			}

			// A central directory that lies about the size.
			zr, _ = zip.NewReader(bytes.NewReader(good), int64(len(good)))
			zr.File[0].UncompressedSize64 += 10
			if _, err := appendMember(nil, zr.File[0], DefaultMaxMember, int64(len(good))); !errors.Is(err, zip.ErrFormat) {
				t.Errorf("wrong size: want zip.ErrFormat, got %v", err)
			}
		})
	}
}

// Reading a member into a reused buffer gives the same bytes as reading it
// alone, whatever the buffer held.
func TestAppendBytesReusesBuffer(t *testing.T) {
	l, err := Open("../../testdata/logs/multiframe-zstd.eval")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	buf := bytes.Repeat([]byte("#"), 1<<16)
	for _, ref := range l.Samples {
		want, err := ref.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ref.AppendBytes(buf[:0])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: reused buffer gives other bytes", ref.Member)
		}
		buf = got
	}
}

// InputCount and LastUserText, which decode little, agree with decoding
// every input message, for every model event of every fixture log (pools,
// version-3 pools, inline inputs).
func TestInputShortcutsAgreeWithFullDecode(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/logs/*.*")
	filepath.WalkDir(testutil.SharedCorpus(t), func(p string, _ fs.DirEntry, _ error) error {
		paths = append(paths, p) // older logs: inline inputs, 2024 transcripts
		return nil
	})
	events, inline := 0, 0
	for _, p := range paths {
		if !strings.HasSuffix(p, ".eval") && !strings.HasSuffix(p, ".json") || strings.HasSuffix(p, "EXPECT.json") {
			continue
		}
		l, err := Open(p)
		if err != nil {
			continue // the corpus's unreadable logs are ingest's tests
		}
		for _, ref := range l.Samples {
			raw, err := ref.Bytes()
			if err != nil {
				continue
			}
			d, err := DecodeSample(raw, "")
			if err != nil {
				continue
			}
			for i := range d.Events {
				e := &d.Events[i]
				if e.Event != "model" {
					continue
				}
				events++
				if len(e.InputRefs) == 0 {
					inline++
				}
				msgs, err := d.InputMessages(e)
				if err != nil {
					t.Fatal(err)
				}
				n, err := d.InputCount(e)
				if err != nil || n != len(msgs) {
					t.Errorf("%s %s event %d: InputCount %d (%v), %d messages", filepath.Base(p), ref.Member, i, n, err, len(msgs))
				}
				want := ""
				for j := len(msgs) - 1; j >= 0; j-- {
					if msgs[j].Role == "user" {
						want = d.Text(&msgs[j])
						break
					}
				}
				if got, err := d.LastUserText(e); err != nil || got != want {
					t.Errorf("%s %s event %d: LastUserText %q (%v), want %q", filepath.Base(p), ref.Member, i, got, err, want)
				}
			}
		}
		l.Close()
	}
	if events < 50 || inline < 10 {
		t.Errorf("only %d model events checked, %d with inline inputs", events, inline)
	}
}

// Decoding sample after sample into one DecodedSample gives what decoding
// each alone gives: nothing of an earlier sample survives the reuse.
func TestDecodeReusesNothingVisible(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/logs/*.eval")
	var reused DecodedSample
	n := 0
	for _, p := range paths {
		l, err := Open(p)
		if err != nil {
			continue // the unreadable fixtures are ingest's tests
		}
		for _, ref := range l.Samples {
			raw, err := ref.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := DecodeSample(raw, "")
			if err != nil {
				continue
			}
			if err := reused.Decode(raw, ""); err != nil {
				t.Fatalf("%s %s: %v", p, ref.Member, err)
			}
			if !reflect.DeepEqual(reused.Sample, fresh.Sample) {
				t.Fatalf("%s %s: the reused decode differs from a fresh one", filepath.Base(p), ref.Member)
			}
			n++
		}
		l.Close()
	}
	if n < 30 {
		t.Fatalf("only %d samples compared", n)
	}
}

// With Limits.HashBeside an .eval log's SHA-256 is the file's, given by
// FinishHash once the samples are read; a log closed first is not hashed
// to the end.
func TestHashBeside(t *testing.T) {
	p := "../../testdata/logs/pools-tools.eval"
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	l, err := OpenLimited(p, Limits{HashBeside: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range l.Samples {
		if _, err := ref.Bytes(); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.FinishHash(); err != nil {
		t.Fatal(err)
	}
	if want := hex.EncodeToString(sum[:]); l.SHA256 != want {
		t.Errorf("SHA256 %s, want %s", l.SHA256, want)
	}
	l.Close()
	l, err = OpenLimited(p, Limits{HashBeside: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// A header without status reads as inspect_ai reads it: EvalLog.status
// defaults to "started" (status: EvalStatus = Field(default="started")).
// The malformed logs header-status-missing.{eval,json} are base.eval and
// base.json with the field removed; VERDICTS.tsv records that the pinned
// inspect_ai reads both, and base's own status stays "success".
func TestMissingStatusIsStarted(t *testing.T) {
	for name, want := range map[string]string{
		"header-status-missing.eval": StatusStarted, "header-status-missing.json": StatusStarted,
		"base.eval": StatusSuccess, "base.json": StatusSuccess,
	} {
		l, err := Open(testutil.Path(t, "testdata", "malformed", name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		l.Close()
		if l.Header.Status != want {
			t.Errorf("%s: status %q, want %q", name, l.Header.Status, want)
		}
	}
}
