package evallog

import (
	"os"
	"testing"
)

// BenchmarkDecodeSample decodes the samples of one log (EMPTIES_BENCH_LOG,
// e.g. bench/corpus/base/agent-a.eval after `make bench`) and reports MB/s of
// sample JSON.
func BenchmarkDecodeSample(b *testing.B) {
	p := os.Getenv("EMPTIES_BENCH_LOG")
	if p == "" {
		b.Skip("set EMPTIES_BENCH_LOG to a log file")
	}
	l, err := Open(p)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	var raws [][]byte
	var total int64
	for _, ref := range l.Samples {
		raw, err := ref.Bytes()
		if err != nil {
			b.Fatal(err)
		}
		raws = append(raws, raw)
		total += int64(len(raw))
	}
	b.SetBytes(total)
	b.ResetTimer()
	for range b.N {
		for _, raw := range raws {
			if _, err := DecodeSample(raw, ""); err != nil {
				b.Fatal(err)
			}
		}
	}
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
