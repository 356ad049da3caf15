package ingest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/evallog"
	"empties/internal/testutil"
)

// BenchmarkSampleRows is what a worker does to a sample once it is
// inflated: decode it and extract its rows (runJob without the read). The
// samples are those of EMPTIES_BENCH_LOGS (a file or folder of logs, e.g.
// bench/corpus/base after `make bench`), or else of the fixtures and both
// shared corpora; it reports MB/s of sample JSON.
func BenchmarkSampleRows(b *testing.B) {
	var dirs []string
	if p := os.Getenv("EMPTIES_BENCH_LOGS"); p != "" {
		dirs = []string{p}
	} else {
		dirs = []string{"../../testdata/logs", testutil.SharedCorpus(b), testutil.WildCorpus(b)}
	}
	type sample struct {
		raw    []byte
		member string
		ctx    *logContext
	}
	var samples []sample
	var total int64
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(p, ".eval") && !strings.HasSuffix(p, ".json") || strings.HasSuffix(p, "EXPECT.json") {
				return nil
			}
			l, err := evallog.Open(p)
			if err != nil {
				return nil
			}
			defer l.Close()
			lc := newLogContext(Fingerprint{Path: p}, l)
			for _, ref := range l.Samples {
				raw, err := ref.Bytes()
				if err != nil {
					continue
				}
				var d evallog.DecodedSample
				if d.Decode(raw, lc.LegacyScoreName) != nil {
					continue
				}
				if _, err := extract(lc, ref.Member, d.View()); err != nil {
					continue
				}
				samples = append(samples, sample{raw, ref.Member, lc})
				total += int64(len(raw))
			}
			return nil
		})
	}
	if len(samples) < 100 {
		b.Fatalf("only %d samples", len(samples))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testutil.CPUSeconds()
	var d evallog.DecodedSample
	for range b.N {
		for _, s := range samples {
			if err := d.Decode(s.raw, s.ctx.LegacyScoreName); err != nil {
				b.Fatal(err)
			}
			if _, err := extract(s.ctx, s.member, d.View()); err != nil {
				b.Fatal(err)
			}
			d.Release()
		}
	}
	testutil.ReportCPU(b, cpu, total)
}
