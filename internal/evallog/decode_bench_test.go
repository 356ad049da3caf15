package evallog

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// BenchmarkDecodeSample decodes the samples of one log (EMPTIES_BENCH_LOG,
// e.g. bench/corpus/base/agent-a.eval after `make bench`) and reports MB/s of
// sample JSON.
func BenchmarkDecodeSample(b *testing.B) {
	raws, total := benchLogSamples(b)
	b.SetBytes(total)
	b.ResetTimer()
	cpu := testutil.CPUSeconds()
	var d DecodedSample
	for range b.N {
		for _, raw := range raws {
			if err := d.Decode(raw, ""); err != nil {
				b.Fatal(err)
			}
		}
	}
	testutil.ReportCPU(b, cpu, total)
}

// BenchmarkDecodeSampleDecoder is BenchmarkDecodeSample by the reference
// (decodeWhole, the way samples were decoded before the walk: the
// repeated-key scan, then goccy over the whole sample).
func BenchmarkDecodeSampleDecoder(b *testing.B) {
	raws, total := benchLogSamples(b)
	benchReference(b, raws, total)
}

func benchReference(b *testing.B, raws [][]byte, total int64) {
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testutil.CPUSeconds()
	for range b.N {
		for _, raw := range raws {
			if _, err := decodeWhole(raw, ""); err != nil {
				b.Fatal(err)
			}
		}
	}
	testutil.ReportCPU(b, cpu, total)
}

// BenchmarkOpenJSON opens (hashes and scans for sample ranges) a .json log
// (EMPTIES_BENCH_JSON, e.g. bench/corpus/base/agent-json.json after `make
// bench`) and reports MB/s of the file.
func BenchmarkOpenJSON(b *testing.B) {
	p := os.Getenv("EMPTIES_BENCH_JSON")
	if p == "" {
		b.Skip("set EMPTIES_BENCH_JSON to a .json log")
	}
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for range b.N {
		l, err := Open(p)
		if err != nil {
			b.Fatal(err)
		}
		l.Close()
	}
}

// corpusSamples reads the raw samples of the fixture logs and both shared
// corpora (about 10 MB of real logs), for benchmarks that need no corpus
// built.
func corpusSamples(b testing.TB) (raws [][]byte, total int64) {
	var paths []string
	for _, dir := range []string{"../../testdata/logs", testutil.SharedCorpus(b), testutil.WildCorpus(b)} {
		filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".eval") || strings.HasSuffix(p, ".json")) && !strings.HasSuffix(p, "EXPECT.json") {
				paths = append(paths, p)
			}
			return nil
		})
	}
	for _, p := range paths {
		l, err := Open(p)
		if err != nil {
			continue // the fixtures of unreadable logs
		}
		for _, ref := range l.Samples {
			if raw, err := ref.Bytes(); err == nil {
				if _, err := DecodeSample(raw, ""); err == nil {
					raws = append(raws, raw)
					total += int64(len(raw))
				}
			}
		}
		l.Close()
	}
	if len(raws) < 300 {
		b.Fatalf("only %d samples", len(raws))
	}
	return raws, total
}

// BenchmarkDecodeCorpus decodes every sample of the fixtures and corpora
// held in memory (as ingest decodes a sample under 8 MiB) and reports MB/s
// of sample JSON.
func BenchmarkDecodeCorpus(b *testing.B) {
	raws, total := corpusSamples(b)
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testutil.CPUSeconds()
	var d DecodedSample
	for range b.N {
		for _, raw := range raws {
			if err := d.Decode(raw, ""); err != nil {
				b.Fatal(err)
			}
		}
	}
	testutil.ReportCPU(b, cpu, total)
}

// BenchmarkDecodeCorpusDecoder is BenchmarkDecodeCorpus by the reference
// (decodeWhole).
func BenchmarkDecodeCorpusDecoder(b *testing.B) {
	raws, total := corpusSamples(b)
	benchReference(b, raws, total)
}

// BenchmarkLastKeyWins is the repeated-key pass alone over the same samples
// (none repeats a key): the scan, the rewrite never running.
func BenchmarkLastKeyWins(b *testing.B) {
	benchKeyPass(b, lastKeyWins)
}

// BenchmarkDropRepeatedKeys is the rewrite alone over the same samples,
// what every decode paid before the scan.
func BenchmarkDropRepeatedKeys(b *testing.B) {
	benchKeyPass(b, dropRepeatedKeys)
}

func benchKeyPass(b *testing.B, pass func([]byte) ([]byte, bool)) {
	raws, total := corpusSamples(b)
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, raw := range raws {
			if _, changed := pass(raw); changed {
				b.Fatal("a corpus sample repeats a key")
			}
		}
	}
}

// BenchmarkDecodeStream decodes the samples of the fixtures and corpora
// from the streams of their members (DecodeStream), as ingest decodes a
// sample of 8 MiB or more, and reports MB/s of sample JSON.
func BenchmarkDecodeStream(b *testing.B) {
	var refs []SampleRef
	var total int64
	for _, dir := range []string{"../../testdata/logs", testutil.SharedCorpus(b), testutil.WildCorpus(b)} {
		filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(p, ".eval") && !strings.HasSuffix(p, ".json") || strings.HasSuffix(p, "EXPECT.json") {
				return nil
			}
			l, err := Open(p)
			if err != nil {
				return nil
			}
			b.Cleanup(func() { l.Close() })
			var d DecodedSample
			for _, ref := range l.Samples {
				if d.DecodeStream(ref, "") == nil {
					refs = append(refs, ref)
					total += ref.RawSize()
				}
			}
			return nil
		})
	}
	if len(refs) < 300 {
		b.Fatalf("only %d samples stream", len(refs))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	var d DecodedSample
	for range b.N {
		for _, ref := range refs {
			if err := d.DecodeStream(ref, ""); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkScanSample is the validating scan alone (ScanSample: the check
// of a value the walk skips, over each whole sample) over the samples of
// EMPTIES_BENCH_LOG, in MB/s of sample JSON.
func BenchmarkScanSample(b *testing.B) {
	raws, total := benchLogSamples(b)
	benchScan(b, raws, total)
}

// benchLogSamples reads the raw samples of EMPTIES_BENCH_LOG.
func benchLogSamples(b *testing.B) (raws [][]byte, total int64) {
	p := os.Getenv("EMPTIES_BENCH_LOG")
	if p == "" {
		b.Skip("set EMPTIES_BENCH_LOG to a log file")
	}
	l, err := Open(p)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	for _, ref := range l.Samples {
		raw, err := ref.Bytes()
		if err != nil {
			b.Fatal(err)
		}
		raws = append(raws, raw)
		total += int64(len(raw))
	}
	return raws, total
}

// BenchmarkScanCorpus is BenchmarkScanSample over the fixtures and both
// shared corpora.
func BenchmarkScanCorpus(b *testing.B) {
	raws, total := corpusSamples(b)
	benchScan(b, raws, total)
}

// benchScan scans raws (a sample the scan refuses, one holding a NaN or
// repeating a key, is scanned as well: the decode leaves it to the
// decoder).
func benchScan(b *testing.B, raws [][]byte, total int64) {
	b.SetBytes(total)
	b.ResetTimer()
	cpu := testutil.CPUSeconds()
	for range b.N {
		for _, raw := range raws {
			ScanSample(raw)
		}
	}
	testutil.ReportCPU(b, cpu, total)
}

// BenchmarkScanSamplePortable is BenchmarkScanSample byte by byte, as on a
// CPU without AVX2.
func BenchmarkScanSamplePortable(b *testing.B) {
	defer SetSIMDScan(false)()
	BenchmarkScanSample(b)
}

// BenchmarkDecodeSamplePortable is BenchmarkDecodeSample with every
// vectorised scan off, as on a CPU without AVX2.
func BenchmarkDecodeSamplePortable(b *testing.B) {
	defer SetSIMDScan(false)()
	BenchmarkDecodeSample(b)
}
