package evallog

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"empties/internal/testutil"
)

// hugeNaNSample is a sample of about mib MiB with a bare NaN score (which
// the decoder before the walk read only whole): mostly tool results and
// attachments no table reads, with a model event every tenth event.
func hugeNaNSample(mib int) []byte {
	var b strings.Builder
	b.WriteString(`{"id": 1, "epoch": 1, "input": "q", "scores": {"s": {"value": NaN}}, "output": {"completion": "done", "choices": []}, "events": [`)
	result := strings.Repeat("tool output ", 64<<10/12)
	n := mib << 20 / 2 / len(result)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if i%10 == 0 {
			fmt.Fprintf(&b, `{"event": "model", "model": "m/x", "input": [{"role": "user", "content": "turn %d"}], "output": {"choices": [{"message": {"role": "assistant", "content": "attachment://a%d"}, "stop_reason": "stop"}]}}`, i, i)
			continue
		}
		fmt.Fprintf(&b, `{"event": "tool", "function": "f", "result": "%s"}`, result)
	}
	b.WriteString(`], "attachments": {`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"a%d": "%s"`, i, result)
	}
	b.WriteString(`}}`)
	return []byte(b.String())
}

// BenchmarkHugeNaNSampleMemory decodes a 64 MiB sample holding a bare NaN
// as Decode does (the walk, the sample held) and by the reference
// (decodeWhole: every field through goccy, after rewriting the NaN), and
// reports the peak Go heap above the sample's own bytes and the bytes
// allocated, in MiB.
func BenchmarkHugeNaNSampleMemory(b *testing.B) {
	raw := hugeNaNSample(64)
	for _, c := range []struct {
		name   string
		decode func() error
	}{
		{"decode", func() error { var d DecodedSample; defer runtime.KeepAlive(&d); return d.Decode(raw, "") }},
		{"whole", func() error { d, err := decodeWhole(raw, ""); runtime.KeepAlive(d); return err }},
	} {
		b.Run(c.name, func(b *testing.B) {
			var peak, alloc uint64
			for range b.N {
				runtime.GC()
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				p := testutil.PeakHeap(time.Millisecond, func() {
					if err := c.decode(); err != nil {
						b.Fatal(err)
					}
				})
				runtime.ReadMemStats(&m1)
				peak, alloc = max(peak, p-m0.HeapAlloc), max(alloc, m1.TotalAlloc-m0.TotalAlloc)
			}
			b.ReportMetric(float64(len(raw))/(1<<20), "sample-MiB")
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			b.ReportMetric(float64(alloc)/(1<<20), "alloc-MiB")
		})
	}
}
