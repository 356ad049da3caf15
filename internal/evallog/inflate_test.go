package evallog

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// appendMemberFresh is appendMember as it was before flateReaders: a new
// inflater for every member. The oracle of TestPooledInflateAsFresh.
func appendMemberFresh(buf []byte, zf *zip.File, maxMember, fileSize int64) ([]byte, error) {
	inflate, err := checkDeclared(zf, maxMember, fileSize)
	if err != nil {
		return nil, err
	}
	size, csize := zf.UncompressedSize64, zf.CompressedSize64
	r, err := zf.OpenRaw()
	if err != nil {
		return nil, err
	}
	comp := make([]byte, csize)
	if _, err := io.ReadFull(r, comp); err != nil {
		return nil, fmt.Errorf("reading member: %w", err)
	}
	n := len(buf)
	if inflate == nil {
		buf = append(buf, comp...)
	} else {
		buf = slices.Grow(buf, int(size)+1)[:n+int(size)+1]
		rc := inflate(bytes.NewReader(comp))
		got, err := io.ReadFull(rc, buf[n:])
		rc.Close()
		switch {
		case err == nil:
			return nil, fmt.Errorf("decompressing (method %d): %w: the member inflates past the %d bytes the central directory declares", zf.Method, zip.ErrFormat, size)
		case uint64(got) == size && (err == io.ErrUnexpectedEOF || err == io.EOF):
		case err == io.ErrUnexpectedEOF || err == io.EOF:
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

// Every deflate member of the fixtures, the malformed logs and the shared
// corpora, whole and damaged (bytes flipped, the data cut short, the
// declared size or CRC wrong), inflates with a pooled inflater, reused
// after every error, to the bytes or the error a new one gives.
func TestPooledInflateAsFresh(t *testing.T) {
	var paths []string
	for _, dir := range []string{testutil.Path(t, "testdata", "logs"), testutil.Path(t, "testdata", "malformed"), testutil.SharedCorpus(t)} {
		filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".eval") {
				paths = append(paths, p)
			}
			return nil
		})
	}
	dir := t.TempDir()
	members, failed := 0, 0
	for _, p := range paths {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
		if err != nil {
			continue
		}
		for _, zf := range zr.File {
			if zf.Method != zip.Deflate || members > 3000 {
				continue
			}
			off, err := zf.DataOffset()
			if err != nil {
				continue
			}
			for v := 0; v < 5; v++ {
				b := append([]byte{}, body...)
				f := *zf
				switch c := int(zf.CompressedSize64); v {
				case 1: // bytes flipped in the middle
					for k := c / 3; k < c/3+4 && k < c; k++ {
						b[int(off)+k] ^= 0x5a
					}
				case 2: // cut short
					f.CompressedSize64 = uint64(c / 2)
				case 3:
					f.UncompressedSize64--
				case 4:
					f.CRC32++
				}
				q := filepath.Join(dir, "m.eval")
				os.WriteFile(q, b, 0o644)
				fh, err := os.Open(q)
				if err != nil {
					t.Fatal(err)
				}
				zr2, err := zip.NewReader(fh, int64(len(b)))
				if err != nil {
					fh.Close()
					continue
				}
				var g *zip.File
				for _, x := range zr2.File {
					if x.Name == zf.Name && x.CRC32 == zf.CRC32 {
						g = x
					}
				}
				if g == nil {
					fh.Close()
					continue
				}
				g.CompressedSize64, g.UncompressedSize64, g.CRC32 = f.CompressedSize64, f.UncompressedSize64, f.CRC32
				want, werr := appendMemberFresh([]byte("x"), g, DefaultMaxMember, int64(len(b)))
				got, gerr := appendMember([]byte("x"), g, DefaultMaxMember, int64(len(b)))
				fh.Close()
				if fmt.Sprint(werr) != fmt.Sprint(gerr) || sha256.Sum256(got) != sha256.Sum256(want) {
					t.Fatalf("%s: %s, variant %d: pooled %d bytes, %v; fresh %d bytes, %v", p, zf.Name, v, len(got), gerr, len(want), werr)
				}
				members++
				if gerr != nil {
					failed++
				}
			}
		}
	}
	t.Logf("%d members inflated alike, %d of them refused", members, failed)
	if members < 200 || failed < 50 {
		t.Fatalf("only %d members, %d refused", members, failed)
	}
}
