package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	kflate "github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"
)

// inflateOnly is -mode inflate: every member of every .eval inflated, every
// .json read, on workers goroutines, and nothing else. The files are opened
// (central directory read) in order by one goroutine ahead of the workers,
// as ingest opens them; a member is read with one call and inflated from
// memory into a reused buffer, with the inflaters ingest uses (klauspost's
// zstd, single-threaded decoders from a pool, and flate), as
// evallog.appendMember does. A .json log is one job: read whole in 1 MiB
// reads into a reused buffer.
func inflateOnly(files []string, workers int) map[string]any {
	var members, rawBytes, failures atomic.Int64
	type job struct {
		path string
		zf   *zip.File // nil: a .json log, read whole
		done *sync.WaitGroup
	}
	work := make(chan job, 32*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var comp, buf []byte
			for j := range work {
				var n int
				var err error
				if j.zf == nil {
					n, buf, err = readWhole(j.path, buf)
				} else {
					n, comp, buf, err = inflate(j.zf, comp, buf)
				}
				if j.done != nil {
					j.done.Done()
				}
				if err != nil {
					failures.Add(1)
					fmt.Fprintf(os.Stderr, "floor: %s: %v\n", j.path, err)
					continue
				}
				members.Add(1)
				rawBytes.Add(int64(n))
			}
		}()
	}
	type opened struct {
		path string
		f    *os.File
		zr   *zip.Reader
		err  error
	}
	openQ := make(chan opened, 2)
	go func() {
		defer close(openQ)
		for _, p := range files {
			o := opened{path: p}
			if strings.HasSuffix(p, ".eval") {
				o.f, o.err = os.Open(p)
				if o.err == nil {
					var st os.FileInfo
					if st, o.err = o.f.Stat(); o.err == nil {
						o.zr, o.err = zip.NewReader(o.f, st.Size())
					}
				}
			}
			openQ <- o
		}
	}()
	var open sync.WaitGroup
	for o := range openQ {
		if o.err != nil {
			failures.Add(1)
			fmt.Fprintf(os.Stderr, "floor: %s: %v\n", o.path, o.err)
			continue
		}
		if o.zr == nil {
			work <- job{path: o.path}
			continue
		}
		done := new(sync.WaitGroup)
		done.Add(len(o.zr.File))
		for _, zf := range o.zr.File {
			work <- job{o.path, zf, done}
		}
		open.Add(1)
		go func() { defer open.Done(); done.Wait(); o.f.Close() }()
	}
	close(work)
	wg.Wait()
	open.Wait()
	return map[string]any{
		"files": len(files), "members": members.Load(), "raw_bytes": rawBytes.Load(),
		"workers": workers, "failures": failures.Load(), "mode": "inflate",
	}
}

var zstdZip = zstd.ZipDecompressor(zstd.WithDecoderConcurrency(1))

var flateReaders = sync.Pool{New: func() any { return kflate.NewReader(bytes.NewReader(nil)) }}

// inflate reads the member's compressed bytes into comp with one call and
// inflates them into buf (both reused); it returns the inflated length.
func inflate(zf *zip.File, comp, buf []byte) (int, []byte, []byte, error) {
	r, err := zf.OpenRaw()
	if err != nil {
		return 0, comp, buf, err
	}
	comp = slices.Grow(comp[:0], int(zf.CompressedSize64))[:zf.CompressedSize64]
	if _, err := io.ReadFull(r, comp); err != nil {
		return 0, comp, buf, err
	}
	var rc io.ReadCloser
	switch zf.Method {
	case zip.Store:
		return len(comp), comp, buf, nil
	case zip.Deflate:
		// A pooled reader, Reset, as appendMember inflates a member.
		fr := flateReaders.Get().(io.ReadCloser)
		defer flateReaders.Put(fr)
		fr.(kflate.Resetter).Reset(bytes.NewReader(comp), nil)
		rc = fr
	case zstd.ZipMethodWinZip:
		rc = zstdZip(bytes.NewReader(comp))
	default:
		return 0, comp, buf, fmt.Errorf("%s: method %d", zf.Name, zf.Method)
	}
	size := int(zf.UncompressedSize64)
	buf = slices.Grow(buf[:0], size+1)[:size+1]
	n, err := io.ReadFull(rc, buf)
	rc.Close()
	if err != io.ErrUnexpectedEOF && err != io.EOF || n != size {
		return 0, comp, buf, fmt.Errorf("%s: inflated %d bytes of %d: %v", zf.Name, n, size, err)
	}
	return n, comp, buf, nil
}

// readWhole reads the file into buf (reused), 1 MiB a read.
func readWhole(p string, buf []byte) (int, []byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, buf, err
	}
	defer f.Close()
	buf = slices.Grow(buf[:0], 1<<20)
	n := 0
	for {
		k, err := f.Read(buf[:cap(buf)][:1<<20])
		n += k
		if err == io.EOF {
			return n, buf, nil
		}
		if err != nil {
			return n, buf, err
		}
	}
}
